package compiler

import (
	"fmt"
	"io/fs"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/parser"

	"github.com/site-tools/site/compiler/model"
	sitefs "github.com/site-tools/site/schema/site"
)

// This file holds the schema of the operator's file and the shape
// site.cue decodes into before buildOperator resolves it.

// rawSite is site.cue as CUE evaluated it, defaults applied.
type rawSite struct {
	Vaults    map[string]*rawVault    `json:"vaults"`
	Providers map[string]*rawProvider `json:"providers"`
	Hosts     map[string]*struct {
		URI    string               `json:"uri"`
		Pools  map[string]*rawPool  `json:"pools"`
		Images map[string]*rawImage `json:"images"`
	} `json:"hosts"`
	Tenants map[string]*rawGrant `json:"tenants"`
	Locks   *rawLocks            `json:"locks"`
}

type rawVault struct {
	Addrs   []string         `json:"addrs"`
	Mount   string           `json:"mount"`
	Token   model.Credential `json:"token"`
	AppRole *struct {
		RoleID   model.Credential `json:"role_id"`
		SecretID model.Credential `json:"secret_id"`
		Mount    string           `json:"mount"`
	} `json:"approle"`
	Plaintext bool `json:"plaintext"`
}

type rawProvider struct {
	Nameservers []string `json:"nameservers"`
	Rate        *rawRate `json:"rate"`
	PowerDNS    *struct {
		URL       string           `json:"url"`
		Server    string           `json:"server"`
		APIKey    model.Credential `json:"api_key"`
		DNS       string           `json:"dns"`
		Plaintext bool             `json:"plaintext"`
	} `json:"powerdns"`
	Cloudflare *struct {
		Token     model.Credential `json:"token"`
		APIURL    string           `json:"api_url"`
		Plaintext bool             `json:"plaintext"`
	} `json:"cloudflare"`
}

type rawGrant struct {
	Domains           []string  `json:"domains"`
	Delegate          []string  `json:"delegate"`
	Names             []string  `json:"names"`
	Providers         []string  `json:"providers"`
	Hosts             []string  `json:"hosts"`
	Bridges           []string  `json:"bridges"`
	CIDRs             *[]string `json:"cidrs"`
	AllowPublicSuffix bool      `json:"allow_public_suffix"`
	Limits            rawLimits `json:"limits"`
}

// siteSchema is a new instance of package site holding the embedded
// schema of the operator's file (schema/site).
func siteSchema() (*build.Instance, error) {
	inst := build.NewContext().NewInstance("site", nil)
	names, err := fs.Glob(sitefs.FS, "*.cue")
	if err != nil {
		return nil, fmt.Errorf("embedded site schema: %w", err)
	}
	for _, name := range names {
		src, err := fs.ReadFile(sitefs.FS, name)
		if err != nil {
			return nil, fmt.Errorf("embedded site schema: %w", err)
		}
		sf, err := parser.ParseFile("schema/site/"+name, src)
		if err != nil {
			return nil, fmt.Errorf("embedded site schema (a bug in site): %w", err)
		}
		if err := inst.AddSyntax(sf); err != nil {
			return nil, fmt.Errorf("embedded site schema (a bug in site): %w", err)
		}
	}
	return inst, nil
}

// siteSchemaValue is the schema of the operator's file on its own, for
// the fields a misspelt one may have meant. It is built only when the
// file has errors; the zero Value, which suggests nothing, if it fails.
func siteSchemaValue(ctx *cue.Context) cue.Value {
	inst, err := siteSchema()
	if err != nil {
		return cue.Value{}
	}
	return ctx.BuildInstance(inst)
}
