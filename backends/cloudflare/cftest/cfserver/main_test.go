package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go"
)

// lineWriter hands each write to a channel, so the test learns the
// address the server took.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) { w <- string(p); return len(p), nil }

// TestServesZonesWithToken: the program serves the zones it was given
// to a client holding the token from the environment, refuses another
// token, and returns when its context ends.
func TestServesZonesWithToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(lineWriter, 1)
	done := make(chan error, 1)
	getenv := func(k string) string {
		if k == tokenEnv {
			return "tok"
		}
		return ""
	}
	go func() { done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-zone", "sjc.example.net"}, getenv, out) }()
	var line string
	select {
	case line = <-out:
	case err := <-done:
		t.Fatalf("run returned before serving: %v", err)
	}
	url := strings.Fields(line[strings.Index(line, "http://"):])[0]
	url = strings.TrimSuffix(url, ",")
	api, err := cloudflare.NewWithAPIToken("tok", cloudflare.BaseURL(url), cloudflare.UsingRetryPolicy(0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.ZoneIDByName("sjc.example.net"); err != nil {
		t.Errorf("zone sjc.example.net: %v (announced %q)", err, line)
	}
	bad, _ := cloudflare.NewWithAPIToken("other", cloudflare.BaseURL(url), cloudflare.UsingRetryPolicy(0, 0, 0))
	if _, err := bad.ZoneIDByName("sjc.example.net"); err == nil {
		t.Error("another token was accepted")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}

func TestRefusesBadInvocations(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		token string
		want  string
	}{
		{"no token", []string{"-zone", "a.test"}, "", "CFTEST_TOKEN is empty"},
		{"stray argument", []string{"a.test"}, "tok", "zones are given with -zone"},
		{"empty zone", []string{"-zone", " "}, "tok", "empty zone name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(string) string { return tt.token }
			err := run(context.Background(), append([]string{"-listen", "127.0.0.1:0"}, tt.args...), getenv, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
