package cftest

import (
	"context"
	"testing"
)

// TestDNSSECDetails: a new zone's DNSSEC is disabled; SetDNSSEC makes it
// what the dashboard would, read through cloudflare-go's own call.
func TestDNSSECDetails(t *testing.T) {
	s := New("tok")
	defer s.Close()
	id := s.AddZone("example.com")
	api := client(t, s, "tok")
	got, err := api.ZoneDNSSECSetting(context.Background(), id)
	if err != nil || got.Status != "disabled" || got.DS != "" {
		t.Fatalf("new zone: got %+v, %v; want disabled without DS", got, err)
	}
	s.SetDNSSEC(id, "active", 2371, "48e9")
	got, err = api.ZoneDNSSECSetting(context.Background(), id)
	if err != nil || got.Status != "active" || got.KeyTag != 2371 || got.Algorithm != "13" || got.DigestType != "2" ||
		got.Digest != "48E9" || got.DS != "example.com. 3600 IN DS 2371 13 2 48E9" || len(got.PublicKey) != 88 {
		t.Errorf("got %+v, %v; want active with key 2371's DS and a 64-octet public key", got, err)
	}
	if n := s.Count(EpDNSSEC); n != 2 {
		t.Errorf("got %d counted, want 2", n)
	}
}
