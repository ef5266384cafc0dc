package vaulttest

import (
	"context"
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
