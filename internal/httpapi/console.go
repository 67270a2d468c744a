package httpapi

import "net/http"

// EnableConsole serves the web console h at "/" and its files under
// /console/; every other path keeps the API's answers.
func (s *APIServer) EnableConsole(h http.Handler) {
	serve := func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	}
	s.rt.handlePage("GET", "/{$}", serve)
	s.rt.handlePage("GET", "/console/", serve)
}
