package main

import (
	"github.com/showroom/showroom/internal/console"
	"github.com/showroom/showroom/internal/httpapi"
)

// enableConsole serves the web console at "/" beside the API.
func enableConsole(api *httpapi.APIServer, system string) error {
	h, err := console.New(console.Config{System: system})
	if err != nil {
		return err
	}
	api.EnableConsole(h)
	return nil
}
