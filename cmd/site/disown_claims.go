package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/model"
)

// claimsOf is zoneClaims of the operator's file disown's --provider
// was read from.
func claimsOf(zone, provider string) ([]*model.Zone, error) {
	config, err := compiler.FindConfig(configFlag, nil)
	if err != nil {
		return nil, err
	}
	return zoneClaims(config, zone, provider)
}

// zoneClaims is compiler.ZoneClaims, its first spec error as site vet
// prints it (site vet lists them all).
func zoneClaims(config, zone, provider string) ([]*model.Zone, error) {
	claims, err := compiler.ZoneClaims(config, zone, provider)
	var diags compiler.Diagnostics
	if errors.As(err, &diags) && len(diags) > 0 {
		return nil, fmt.Errorf("the tenant files have errors (site vet lists them): %s", diags[0].Format(relPos))
	}
	return claims, err
}

// warnClaims tells, beside the markers disown lists, which tenants
// still declare the zone on the provider and what their next apply does
// with the unmarked records, or that this could not be checked. It
// never refuses: an operator may mean to disown a zone for a while.
func warnClaims(w io.Writer, zone, provider string, claims []*model.Zone, err error) {
	if err != nil {
		fmt.Fprintf(w, "note: could not check whether a tenant still declares zone %s on provider %s: %v\n", zone, provider, err)
		return
	}
	for _, z := range claims {
		p := relPos(z.Pos)
		fmt.Fprintf(w, "warning: tenant %s still declares zone %s on provider %s, at %s:%d:%d: "+
			"its next apply takes the unmarked records back, at the names it declares "+
			"(adopting those that match its spec, overwriting the others with --ack GATE-DNS-OVERWRITE); "+
			"to leave them to no tenant, remove the zone from %s first\n",
			z.Tenant, zone, provider, p.File, p.Line, p.Col, p.File)
	}
}
