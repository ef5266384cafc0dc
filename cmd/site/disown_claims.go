package main

import (
	"errors"
	"fmt"

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
