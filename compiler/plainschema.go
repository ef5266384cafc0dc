package compiler

// Evaluating a spec with CUE is most of what loading it costs (about
// 70 % of the CPU of site vet of 1,000 generated tenants, measured with
// cuelang.org/go v0.17.1), and most spec files are plain data. For such
// a file, plainAccepts checks the plain values against a mirror of
// schema/*.cue written in Go; when it accepts them, CUE is not run at
// all and the values decoded from the syntax tree are the result.
//
// The mirror only ever decides "valid". Anything it refuses, and any
// file that is not plain data, is evaluated by CUE as before, so every
// error and its position still comes from CUE. Soundness runs one way
// and is what the tests prove (plainschema_test.go,
// plainschema_fuzz_test.go): whatever the mirror accepts, CUE accepts,
// and decodes to the same tenants.
//
// When schema/*.cue changes, the mirror must be revisited:
// TestPlainSchemaRevisited fails until checkedSchemaSum is updated.

// checkedSchemaSum is the hash (schemaSum) of the schema/*.cue the
// mirror below was last checked against.
const checkedSchemaSum = "11c49c9c434923387b6b1784016a821a1c9b84487728467aa70e2e422603256c"

// The mirror of schema/*.cue, definition by definition.
var (
	plainTTL = intIn(1, 2147483647) // #TTL
	plainU16 = intIn(0, 65535)      // #U16
	plainU8  = intIn(0, 255)        // #U8
	plainRef = matching(`^[a-z0-9][a-z0-9_-]*$`)
	// #Size
	plainSize = matching(`^[0-9]+(KiB|MiB|GiB|TiB)$`)

	plainSVCB = closed(req("priority", plainU16), req("target", isString), opt("params", isString))

	// #Name
	plainName = closed(plainNameFields...)

	// #Named: a #Name with its provider (dns: names).
	plainNamed = closed(append([]field{req("provider", plainRef)}, plainNameFields...)...)

	plainNameFields = []field{
		opt("ttl", plainTTL),
		opt("ttls", mapOf(plainTTL)),
		opt("proxied", isBool),
		opt("A", listOf(isString, 0)),
		opt("AAAA", listOf(isString, 0)),
		opt("CNAME", isString),
		opt("TXT", listOf(either(isString, listOf(isString, 0)), 0)),
		opt("MX", listOf(closed(req("priority", plainU16), req("host", isString)), 0)),
		opt("SRV", listOf(closed(req("priority", plainU16), req("weight", plainU16), req("port", plainU16), req("target", isString)), 0)),
		opt("CAA", listOf(closed(opt("flags", plainU8), req("tag", isString), req("value", isString)), 0)),
		opt("NS", listOf(isString, 0)),
		opt("PTR", listOf(isString, 0)),
		opt("SSHFP", listOf(closed(req("algorithm", plainU8), req("type", plainU8), req("fingerprint", isString)), 0)),
		opt("TLSA", listOf(closed(req("usage", plainU8), req("selector", plainU8), req("matching_type", plainU8), req("certificate", isString)), 0)),
		opt("HTTPS", listOf(plainSVCB, 0)),
		opt("SVCB", listOf(plainSVCB, 0)),
		opt("NAPTR", listOf(closed(req("order", plainU16), req("preference", plainU16), req("flags", isString),
			req("service", isString), req("regexp", isString), req("replacement", isString)), 0)),
		opt("DS", listOf(closed(req("key_tag", plainU16), req("algorithm", plainU8), req("digest_type", plainU8), req("digest", isString)), 0)),
		opt("DNAME", isString),
		opt("OPENPGPKEY", listOf(isString, 0)),
		opt("DHCID", listOf(isString, 0)),
		opt("ALIAS", isString),
		opt("LOC", listOf(isString, 0)),
		opt("URI", listOf(closed(req("priority", plainU16), req("weight", plainU16), req("target", isString)), 0)),
		opt("CERT", listOf(closed(req("type", plainU16), req("key_tag", plainU16), req("algorithm", plainU8), req("certificate", isString)), 0)),
		opt("SMIMEA", listOf(closed(req("usage", plainU8), req("selector", plainU8), req("matching_type", plainU8), req("certificate", isString)), 0)),
		opt("HINFO", listOf(closed(req("cpu", isString), req("os", isString)), 0)),
		opt("RP", listOf(closed(req("mbox", isString), req("txt", isString)), 0)),
	}

	// #Zone
	plainZone = closed(
		req("provider", either(plainRef, listOf(plainRef, 1))),
		opt("ttl", plainTTL),
		opt("records", mapOf(plainName)),
		opt("ignore", listOf(closed(req("name", isString), opt("type", isString), opt("value", isString)), 0)),
		opt("soa", closed(opt("primary", isString), opt("mbox", isString), opt("refresh", plainTTL), opt("retry", plainTTL),
			opt("expire", plainTTL), opt("minimum", plainTTL))),
		opt("dnssec", isBool),
	)

	// #Network: its fields, then what its mode requires (below).
	plainNetworkFields = closed(req("host", plainRef), opt("mode", oneOf("nat", "isolated", "bridge")),
		opt("cidr", isString), opt("bridge", isString), req("autostart", isBool))

	// #VM, #Disk, #NIC
	plainVM = closed(
		req("host", plainRef),
		req("autostart", isBool),
		opt("running", isBool),
		opt("vcpus", intIn(1, 1024)),
		opt("memory", plainSize),
		opt("disks", listOf(closed(opt("pool", nonEmpty), req("name", nonEmpty), req("size", plainSize),
			opt("base", nonEmpty), opt("clone", isBool)), 0)),
		opt("nics", listOf(closed(req("network", nonEmpty), opt("address", isString),
			opt("mac", matching(`^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$`))), 0)),
		opt("cloudinit", closed(req("user_data", isString), opt("meta_data", isString), opt("network_config", isString))),
		opt("publish", closed(req("zone", nonEmpty), req("names", listOf(isString, 1)), req("address", isString), opt("ptr", isBool))),
	)

	// #Tenant
	plainTenant = closed(
		req("domain", nonEmpty),
		// A decodedZone is a zone plainZone accepted as takeTree read it.
		opt("dns", closed(opt("zones", mapOf(either(isDecodedZone, plainZone))), opt("names", mapOf(plainNamed)))),
		opt("networks", mapOf(plainNetwork)),
		opt("vms", mapOf(plainVM)),
	)

	// The file: tenants: [string]: #Tenant.
	plainFile = closed(opt("tenants", mapOf(plainTenant)))
)

// plainNetwork is #Network: a network in mode "bridge" names its
// bridge; in any other mode, "nat" when none is written, it has a cidr.
func plainNetwork(v any) bool {
	if !plainNetworkFields(v) {
		return false
	}
	m := v.(map[string]any)
	_, cidr := m["cidr"]
	_, bridge := m["bridge"]
	if m["mode"] == "bridge" {
		return bridge
	}
	return cidr
}

func isDecodedZone(v any) bool { _, ok := v.(decodedZone); return ok }

// plainAccepts reports whether the schema accepts top, the top level of
// a plain-data file (plainData). false means only "let CUE decide".
func plainAccepts(top map[string]any) bool { return plainFile(top) }
