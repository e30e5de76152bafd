package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestErrorNamesPackageOnce: a refused address reads "fetch: policy URL: ... address
// not allowed", with "fetch:" once, and still matches ErrForbiddenAddress.
func TestErrorNamesPackageOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := New(Options{UserAgent: "test-bot"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Fetch(context.Background(), &Request{URL: srv.URL + "/"})
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("Fetch of loopback: got %v, want ErrForbiddenAddress", err)
	}
	if n := strings.Count(err.Error(), "fetch:"); n != 1 {
		t.Errorf("error %q names fetch %d times, want once", err, n)
	}
}
