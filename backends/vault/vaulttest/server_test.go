package vaulttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/vault/api"
)

// TestHealth reads /v1/sys/health through the real client, which sends
// sealedcode=299 and so gets a body back for a sealed store too.
func TestHealth(t *testing.T) {
	tests := []struct {
		name   string
		sealed bool
	}{
		{"active", false},
		{"sealed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New("tok")
			defer s.Close()
			s.Seal(tt.sealed)
			cfg := api.DefaultConfig()
			cfg.Address, cfg.MaxRetries = s.URL, 0
			c, err := api.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			h, err := c.Sys().HealthWithContext(context.Background())
			if err != nil {
				t.Fatalf("Health: %v", err)
			}
			if h.Sealed != tt.sealed || !h.Initialized {
				t.Errorf("got sealed=%v initialized=%v, want sealed=%v initialized=true", h.Sealed, h.Initialized, tt.sealed)
			}
			if s.Count("health") != 1 {
				t.Errorf("got %d health requests, want 1", s.Count("health"))
			}
		})
	}
}

// TestSoftDeletedShape checks the answer the client turns into a secret
// with nil Data and a deletion time, not an error.
func TestSoftDeletedShape(t *testing.T) {
	s := New("tok")
	defer s.Close()
	s.Put("secret", "a/b", map[string]any{"k": "v"})
	s.SoftDelete("secret", "a/b")
	cfg := api.DefaultConfig()
	cfg.Address, cfg.MaxRetries = s.URL, 0
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken("tok")
	kv, err := c.KVv2("secret").Get(context.Background(), "a/b")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if kv.Data != nil || kv.VersionMetadata == nil || kv.VersionMetadata.DeletionTime.IsZero() || kv.VersionMetadata.Version != 1 {
		t.Errorf("got data %v metadata %+v, want nil data and version 1 with a deletion time", kv.Data, kv.VersionMetadata)
	}
}

// TestCheckAndSet writes through the real client with options.cas: 0
// creates only a secret that does not exist, N writes only over version
// N, and a soft-deleted latest version is still the current one.
func TestCheckAndSet(t *testing.T) {
	s := New("tok")
	defer s.Close()
	cfg := api.DefaultConfig()
	cfg.Address, cfg.MaxRetries = s.URL, 0
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken("tok")
	kv, ctx := c.KVv2("secret"), context.Background()
	casMismatch := func(err error) bool {
		var re *api.ResponseError
		return errors.As(err, &re) && re.StatusCode == 400 && strings.Contains(strings.Join(re.Errors, ""), "check-and-set parameter did not match the current version")
	}
	got, err := kv.Put(ctx, "l", map[string]any{"n": "1"}, api.WithCheckAndSet(0))
	if err != nil || got.VersionMetadata == nil || got.VersionMetadata.Version != 1 {
		t.Fatalf("cas=0 on an absent secret: %+v %v, want version 1", got, err)
	}
	if _, err := kv.Put(ctx, "l", map[string]any{"n": "x"}, api.WithCheckAndSet(0)); !casMismatch(err) {
		t.Errorf("cas=0 on an existing secret: %v, want 400 check-and-set mismatch", err)
	}
	if _, err := kv.Put(ctx, "l", map[string]any{"n": "x"}, api.WithCheckAndSet(2)); !casMismatch(err) {
		t.Errorf("cas=2 on version 1: %v, want 400 check-and-set mismatch", err)
	}
	if got, err := kv.Put(ctx, "l", map[string]any{"n": "2"}, api.WithCheckAndSet(1)); err != nil || got.VersionMetadata.Version != 2 {
		t.Errorf("cas=1 on version 1: %+v %v, want version 2", got, err)
	}
	s.SoftDelete("secret", "l")
	if _, err := kv.Put(ctx, "l", map[string]any{"n": "x"}, api.WithCheckAndSet(0)); !casMismatch(err) {
		t.Errorf("cas=0 on a soft-deleted secret: %v, want 400 check-and-set mismatch", err)
	}
	if got, err := kv.Put(ctx, "l", map[string]any{"n": "3"}, api.WithCheckAndSet(2)); err != nil || got.VersionMetadata.Version != 3 {
		t.Errorf("cas=2 on soft-deleted version 2: %+v %v, want version 3", got, err)
	}
	if r, err := kv.Get(ctx, "l"); err != nil || r.Data["n"] != "3" {
		t.Errorf("read after the writes: %+v %v, want n=3", r, err)
	}
	if s.Count("write") != 6 {
		t.Errorf("got %d writes counted, want 6", s.Count("write"))
	}
}
