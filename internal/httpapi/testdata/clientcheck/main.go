// Command clientcheck drives a Showroom through the Go client that
// oapi-codegen generates from the served OpenAPI document (TestGeneratedClient
// writes it beside this file as client.gen.go, in a module of its own): it
// logs in, uploads a background, saves a configuration that uses it,
// processes a photo with it and reads the job back, and prints what it got
// as JSON for the test to check. It stops at the first answer that is not
// the one expected, so that it fails where a client author would.
//
//	clientcheck -server URL -username U -password P -photo FILE -background FILE
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
)

func main() {
	server := flag.String("server", "", "base URL")
	username := flag.String("username", "", "user to log in as")
	password := flag.String("password", "", "the user's password")
	photo := flag.String("photo", "", "a car photo (JPEG)")
	background := flag.String("background", "", "a background (PNG)")
	flag.Parse()
	report, err := run(context.Background(), *server, *username, *password, *photo, *background)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientcheck:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(report)
}

// report is what the run saw, for the test to check.
type report struct {
	Me                string   `json:"me"` // company/username
	ContentName       string   `json:"contentName"`
	ContentWidth      int      `json:"contentWidth"`
	ConfigurationLen  int      `json:"configurationProcessors"`
	ConfigurationCost int      `json:"configurationCost"`
	ResultType        string   `json:"resultType"`
	Result            []byte   `json:"result"`
	JobID             string   `json:"jobId"`
	JobStatus         string   `json:"jobStatus"`
	JobFormat         *string  `json:"jobFormat"`
	JobWarnings       []string `json:"jobWarnings"`
	WarningsHeader    string   `json:"warningsHeader"`
	MissingCode       string   `json:"missingConfigurationCode"`
}

func run(ctx context.Context, server, username, password, photoFile, backgroundFile string) (*report, error) {
	var r report
	anon, err := NewClientWithResponses(server)
	if err != nil {
		return nil, err
	}
	login, err := anon.LoginWithResponse(ctx, LoginJSONRequestBody{Username: username, Password: password, System: "showroom"})
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if login.JSON200 == nil {
		return nil, fmt.Errorf("login: %d %s", login.StatusCode(), login.Body)
	}
	bearer := func(ctx context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+login.JSON200.AccessToken)
		return nil
	}
	c, err := NewClientWithResponses(server, WithRequestEditorFn(bearer))
	if err != nil {
		return nil, err
	}

	me, err := c.GetMeWithResponse(ctx)
	if err != nil {
		return nil, fmt.Errorf("me: %w", err)
	}
	if me.JSON200 == nil {
		return nil, fmt.Errorf("me: %d %s", me.StatusCode(), me.Body)
	}
	r.Me = me.JSON200.Company + "/" + me.JSON200.Username

	bg, err := os.ReadFile(backgroundFile)
	if err != nil {
		return nil, err
	}
	up, err := c.UploadContentWithBodyWithResponse(ctx, "clientBackdrop", UploadContentParamsTypeBACKGROUNDSIMPLE, "image/png", bytes.NewReader(bg))
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	if up.JSON201 == nil {
		return nil, fmt.Errorf("upload: %d %s", up.StatusCode(), up.Body)
	}
	r.ContentName, r.ContentWidth = up.JSON201.ContentName, up.JSON201.Width

	// The processors as typed values: the union types the generator makes
	// of the document's oneOf with its discriminator.
	var detect, place ProcessorObject
	if err := detect.FromDetectCarMaskProcessor(DetectCarMaskProcessor{}); err != nil {
		return nil, err
	}
	width := 320
	if err := place.FromAddBackgroundAndCropProcessor(AddBackgroundAndCropProcessor{Background: "clientBackdrop", OutputWidth: &width}); err != nil {
		return nil, err
	}
	var config ConfigurationBody
	if err := config.FromProcessorList(ProcessorList{detect, place}); err != nil {
		return nil, err
	}
	saved, err := c.SaveConfigurationWithResponse(ctx, "clientStudio", config)
	if err != nil {
		return nil, fmt.Errorf("save configuration: %w", err)
	}
	if saved.JSON201 == nil {
		return nil, fmt.Errorf("save configuration: %d %s", saved.StatusCode(), saved.Body)
	}
	r.ConfigurationLen, r.ConfigurationCost = len(saved.JSON201.Configurations), saved.JSON201.Cost

	photo, err := os.ReadFile(photoFile)
	if err != nil {
		return nil, err
	}
	png := ProcessPhotoParamsFormatPng
	res, err := c.ProcessPhotoWithBodyWithResponse(ctx, "clientStudio", &ProcessPhotoParams{Format: &png}, "image/jpeg", bytes.NewReader(photo))
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	if res.StatusCode() != http.StatusOK {
		return nil, fmt.Errorf("process: %d %s", res.StatusCode(), res.Body)
	}
	r.ResultType, r.Result = res.HTTPResponse.Header.Get("Content-Type"), res.Body

	r.JobID = res.HTTPResponse.Header.Get("X-Job-ID")
	r.WarningsHeader = res.HTTPResponse.Header.Get("Showroom-Warnings")
	job, err := c.GetJobWithResponse(ctx, r.JobID)
	if err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	if job.JSON200 == nil {
		return nil, fmt.Errorf("job: %d %s", job.StatusCode(), job.Body)
	}
	r.JobStatus = string(job.JSON200.Status)
	if f := job.JSON200.Format; f != nil {
		s := string(*f)
		r.JobFormat = &s
	}
	// Typed: the warnings are always there, each code one of an enum.
	r.JobWarnings = []string{}
	for _, w := range job.JSON200.Warnings {
		r.JobWarnings = append(r.JobWarnings, string(w.Code))
	}

	// An error answer arrives as the typed error body.
	missing, err := c.ProcessPhotoWithBodyWithResponse(ctx, "noSuchConfiguration", nil, "image/jpeg", bytes.NewReader(photo))
	if err != nil {
		return nil, fmt.Errorf("process with a missing configuration: %w", err)
	}
	if missing.JSON404 == nil {
		return nil, fmt.Errorf("process with a missing configuration: %d %s", missing.StatusCode(), missing.Body)
	}
	r.MissingCode = missing.JSON404.ErrorCode
	return &r, nil
}
