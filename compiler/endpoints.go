package compiler

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// An endpoint site.cue reaches at a name inside a tenant's granted
// domain is that tenant's to redirect: its records decide which server
// the name reaches, and its own _acme-challenge record gets it a TLS
// certificate for the name, so whatever site sends there the tenant can
// see. That is as it should be for the tenant's own store or server and
// a credential that serves the tenant alone (site.cue's example: sjc's
// OpenBao at keys.sjc.example.net, holding sjc's Cloudflare token). It
// is not when the same credential opens something that serves others:
// endpointWarnings says so, at the address, from site.cue alone.

// endpointWarnings warns of each vault address, PowerDNS url and
// Cloudflare api_url at a name a tenant holds whose credential (or what
// it unlocks) serves more than that tenant.
func (o *operator) endpointWarnings(pos *positions) Diagnostics {
	users := o.credentialUsers()
	var diags Diagnostics
	warn := func(p []string, format string, args ...any) {
		diags = append(diags, Diagnostic{Pos: pos.pos(p...), Path: cuePath(p...), Warning: true, Msg: fmt.Sprintf(format, args...)})
	}
	// others lists who else uses a credential than self.
	others := func(c model.Credential, self string) []string {
		return slices.DeleteFunc(slices.Clone(users[credentialKey(c)]), func(u string) bool { return u == self })
	}
	for _, name := range slices.Sorted(maps.Keys(o.vaults)) {
		v, self := o.vaults[name], "vault "+name
		for i, addr := range v.Addrs {
			tenant, intro, ok := o.tenantEndpoint(self+"'s address", addr)
			if !ok {
				continue
			}
			p := []string{"vaults", name, "addrs", fmt.Sprint(i)}
			for _, c := range vaultLogin(v) {
				if also := others(c.cred, self); len(also) > 0 {
					warn(p, "%s; its %s %s is also the credential of %s, so %s could capture it and use it there: give vault %s a credential of its own, or reach it at an address the operator controls",
						intro, c.what, credentialName(c.cred), andList(also), tenant, name)
				}
			}
			for _, pn := range slices.Sorted(maps.Keys(o.providers)) {
				c, field := providerCredential(o.providers[pn])
				if c.Vault == nil || c.Vault.Vault != name {
					continue
				}
				if to := o.grantedBesides(pn, tenant); len(to) > 0 {
					warn(p, "%s; provider %s reads its %s from this store and is granted to %s, so %s, which decides what answers there, could read that %s and write %s zones with it: give provider %s a credential of its own outside vault %s, reach the store at an address the operator controls, or grant %s to %s alone",
						intro, pn, field, tenantList(to), tenant, field, possessive(to), pn, name, pn, tenant)
				}
			}
		}
	}
	for _, pn := range slices.Sorted(maps.Keys(o.providers)) {
		pr, self := o.providers[pn], "provider "+pn
		var addr string
		var p []string
		switch {
		case pr.PowerDNS != nil:
			addr, p = pr.PowerDNS.URL, []string{"providers", pn, "powerdns", "url"}
		case pr.Cloudflare != nil && pr.Cloudflare.APIURL != "":
			addr, p = pr.Cloudflare.APIURL, []string{"providers", pn, "cloudflare", "api_url"}
		default:
			continue
		}
		tenant, intro, ok := o.tenantEndpoint(self+"'s "+p[len(p)-1], addr)
		if !ok {
			continue
		}
		c, field := providerCredential(pr)
		if to := o.grantedBesides(pn, tenant); len(to) > 0 {
			warn(p, "%s; provider %s's %s %s goes there, and %s is granted to %s, so %s could capture it and write %s zones with it: reach %s at an address the operator controls, or grant %s to %s alone",
				intro, pn, field, credentialName(c), pn, tenantList(to), tenant, possessive(to), pn, pn, tenant)
		}
		if also := others(c, self); len(also) > 0 {
			warn(p, "%s; its %s %s is also the credential of %s, so %s could capture it and use it there: give provider %s a credential of its own, or reach it at an address the operator controls",
				intro, field, credentialName(c), andList(also), tenant, pn)
		}
	}
	return diags
}

// tenantEndpoint reports whether addr, what says it, reaches a name a
// tenant holds, and returns that tenant and the start of a warning
// saying so. IP literals and loopback are not names a tenant's records
// decide.
func (o *operator) tenantEndpoint(what, addr string) (tenant, intro string, ok bool) {
	u, err := url.Parse(addr)
	if err != nil {
		return "", "", false
	}
	host := u.Hostname()
	if host == "" || net.ParseIP(host) != nil {
		return "", "", false
	}
	name, err := dnsname.Canonical(host, ".")
	if err != nil || name == "localhost." || strings.HasSuffix(name, ".localhost.") {
		return "", "", false
	}
	held, c, ok := o.holder(name)
	if !ok {
		return "", "", false
	}
	return c.tenant, fmt.Sprintf("%s %s reaches %s, inside %s, which site.cue grants tenant %s: %s's records decide which server that name reaches, and %s can get a TLS certificate for it, so what site sends there is %s's to see",
		what, addr, name, held, c.tenant, c.tenant, c.tenant, c.tenant), true
}

// login is one credential site sends a store to log in.
type login struct {
	what string // "login credential", "AppRole role_id", ...
	cred model.Credential
}

// vaultLogin is what site sends store v to log in: the AppRole's ids
// when it has one (then no token), else its token.
func vaultLogin(v *model.Vault) []login {
	if v.AppRole != nil {
		return []login{{"AppRole role_id", v.AppRole.RoleID}, {"AppRole secret_id", v.AppRole.SecretID}}
	}
	return []login{{"login credential", vaultToken(v)}}
}

// vaultToken is v's token credential, VAULT_TOKEN when site.cue names
// none (the schema's default, which a store built in Go may lack).
func vaultToken(v *model.Vault) model.Credential {
	if v.Token.Env == "" && v.Token.Vault == nil {
		return model.Credential{Env: "VAULT_TOKEN"}
	}
	return v.Token
}

// providerCredential is what site sends provider p, and its field's name.
func providerCredential(p model.Provider) (model.Credential, string) {
	if p.PowerDNS != nil {
		return p.PowerDNS.APIKey, "api_key"
	}
	return p.Cloudflare.Token, "token"
}

// credentialUsers lists, by credentialKey, the stores and providers
// each credential is sent to ("vault NAME", "provider NAME"), sorted.
func (o *operator) credentialUsers() map[string][]string {
	users := map[string][]string{}
	add := func(c model.Credential, who string) {
		k := credentialKey(c)
		if !slices.Contains(users[k], who) {
			users[k] = append(users[k], who)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.vaults)) {
		for _, l := range vaultLogin(o.vaults[name]) {
			add(l.cred, "vault "+name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.providers)) {
		c, _ := providerCredential(o.providers[name])
		add(c, "provider "+name)
	}
	return users
}

// credentialKey says which secret c is: one environment variable, or
// one key of one secret in one store.
func credentialKey(c model.Credential) string {
	if c.Vault != nil {
		return "vault\x00" + c.Vault.Vault + "\x00" + c.Vault.Path + "\x00" + c.Vault.Key
	}
	return "env\x00" + c.Env
}

// credentialName is c as a warning names it: $NAME, or the secret's
// path and key in its store.
func credentialName(c model.Credential) string {
	if c.Vault != nil {
		return fmt.Sprintf("(key %s of secret %s in vault %s)", c.Vault.Key, c.Vault.Path, c.Vault.Vault)
	}
	return "$" + c.Env
}

// grantedBesides lists, sorted, the tenants other than tenant granted
// provider.
func (o *operator) grantedBesides(provider, tenant string) []string {
	var out []string
	for _, t := range slices.Sorted(maps.Keys(o.grants)) {
		if t != tenant && o.grants[t].providers[provider] {
			out = append(out, t)
		}
	}
	return out
}

func tenantList(ts []string) string {
	if len(ts) == 1 {
		return "tenant " + ts[0]
	}
	return "tenants " + andList(ts)
}

// possessive names whose zones: "office1's", "a's and b's".
func possessive(ts []string) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t + "'s"
	}
	return andList(out)
}

// andList joins "a", "a and b", "a, b and c".
func andList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// A credential site.cue sends over plain http to an IP address goes to
// whatever answers at that address, and on a libvirt host that is a
// tenant's guest when the tenant's network holds it: the route to the
// network's bridge is as narrow as its prefix, narrower than the LAN
// the operator meant, so the runner's request reaches the guest. Over
// https the guest has no certificate for the address and the request
// fails; a name is endpointWarnings' concern. vet refuses a network
// holding such an address where the tenant could take what serves
// another tenant too (the same rule as the warnings), and lets the
// tenant whose own store it is keep its network (site.cue's bao on
// sjc's LAN).

// plainIP is an address site.cue sends a credential to over plain http
// by IP.
type plainIP struct {
	ip   netip.Addr
	addr string // as site.cue writes it
	// Exactly one of vault and provider names the store or provider.
	vault, provider string
	pos             model.Pos
}

// who names e's store or provider in a message.
func (e plainIP) who() string {
	if e.vault != "" {
		return "vault " + e.vault
	}
	return "provider " + e.provider
}

// plainIPs lists the vault addresses, PowerDNS urls and Cloudflare
// api_urls of site.cue that are http:// to an IP address.
func (o *operator) plainIPs(pos *positions) []plainIP {
	var out []plainIP
	add := func(e plainIP, raw string, p []string) {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" {
			return
		}
		ip, err := netip.ParseAddr(u.Hostname())
		if err != nil {
			return
		}
		e.ip, e.addr, e.pos = ip.Unmap(), raw, pos.pos(p...)
		out = append(out, e)
	}
	for _, name := range slices.Sorted(maps.Keys(o.vaults)) {
		for i, addr := range o.vaults[name].Addrs {
			add(plainIP{vault: name}, addr, []string{"vaults", name, "addrs", fmt.Sprint(i)})
		}
	}
	for _, pn := range slices.Sorted(maps.Keys(o.providers)) {
		switch pr := o.providers[pn]; {
		case pr.PowerDNS != nil:
			add(plainIP{provider: pn}, pr.PowerDNS.URL, []string{"providers", pn, "powerdns", "url"})
		case pr.Cloudflare != nil && pr.Cloudflare.APIURL != "":
			add(plainIP{provider: pn}, pr.Cloudflare.APIURL, []string{"providers", pn, "cloudflare", "api_url"})
		}
	}
	return out
}

// takes lists what tenant could take by answering at e: nothing when
// e's credential, and what it opens, serve tenant alone.
func (o *operator) takes(e plainIP, tenant string) []string {
	users := o.credentialUsers()
	others := func(c model.Credential, self string) []string {
		return slices.DeleteFunc(slices.Clone(users[credentialKey(c)]), func(u string) bool { return u == self })
	}
	var out []string
	if e.vault != "" {
		for _, c := range vaultLogin(o.vaults[e.vault]) {
			if also := others(c.cred, e.who()); len(also) > 0 {
				out = append(out, fmt.Sprintf("its %s %s, also the credential of %s", c.what, credentialName(c.cred), andList(also)))
			}
		}
		for _, pn := range slices.Sorted(maps.Keys(o.providers)) {
			c, field := providerCredential(o.providers[pn])
			if c.Vault == nil || c.Vault.Vault != e.vault {
				continue
			}
			if to := o.grantedBesides(pn, tenant); len(to) > 0 {
				out = append(out, fmt.Sprintf("provider %s's %s, read from it, and with it %s zones", pn, field, possessive(to)))
			}
		}
		return out
	}
	c, field := providerCredential(o.providers[e.provider])
	var what []string
	if to := o.grantedBesides(e.provider, tenant); len(to) > 0 {
		what = append(what, "with it "+possessive(to)+" zones")
	}
	if also := others(c, e.who()); len(also) > 0 {
		what = append(what, "it is also the credential of "+andList(also))
	}
	if len(what) > 0 {
		out = append(out, fmt.Sprintf("its %s %s, and %s", field, credentialName(c), strings.Join(what, ", and ")))
	}
	return out
}

// endpointsIn refuses network n's prefix, at path, where it holds an
// address of plainIPs at which tenant could take what serves others.
func (b *builder) endpointsIn(tenant string, path []string, n *model.Network) {
	prefix, err := netip.ParsePrefix(n.CIDR)
	if err != nil {
		return
	}
	for _, e := range b.op.plainIP {
		if !prefix.Contains(e.ip) {
			continue
		}
		if took := b.op.takes(e, tenant); len(took) > 0 {
			b.related(path, []model.Pos{e.pos}, "network %s's cidr %s holds %s, where site.cue reaches %s over plain http (%s): on its host the network's route takes that address unless a narrower one does, so tenant %s's guest there would answer the runner and take %s: pick a prefix without %s, or the operator reaches %s over https or at an address no tenant's network holds",
				n.Name, n.CIDR, e.ip, e.who(), e.addr, tenant, strings.Join(took, "; and "), e.ip, e.who())
		}
	}
}
