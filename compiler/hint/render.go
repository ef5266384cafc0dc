package hint

// Render spells h the way site's messages end; "" for None.
func (h Hint) Render() string {
	if r, ok := h.renderRun(); ok {
		return r
	}
	if r, ok := h.renderHost(); ok {
		return r
	}
	return h.renderSetup()
}

// renderRun spells the advice about runs, gates and locks.
func (h Hint) renderRun() (string, bool) {
	switch h.Kind {
	case RunAgain:
		return "run site apply again to converge", true
	case Acknowledge:
		switch {
		case h.Command != "":
			return "to acknowledge, run: " + h.Command + " " + h.Spec, true
		case h.Spec != "":
			return "to acknowledge, add: " + h.Spec, true
		}
		return "rerun with --ack " + h.Gate, true
	case ReviewThenAcknowledge:
		return "run site diff again and apply with --ack " + h.Gate, true
	case WaitOrUnlock:
		if h.Claim {
			return "run again in a moment, give --lock-timeout to wait, or, if that run is gone, break the claim with site unlock " + h.Tenant + " --ack GATE-LOCK-BREAK", true
		}
		return "wait for it to finish and run again, give --lock-timeout to wait, or, if that run is dead, wait for its lease to run out or break the lock with site unlock " + h.Tenant + " --ack GATE-LOCK-BREAK", true
	case RaiseTimeout:
		return "check that the server runs and that this host reaches it, or raise " + h.Setting + " for a server that is only slow", true
	case RunDiffAgain:
		if h.Command != "" {
			return h.Command + ", then run site diff again and apply", true
		}
		return "run site diff again, then apply", true
	case ConfirmWithYes:
		return "--yes says yes to these changes without asking (an --ack never does without a terminal); to apply them, run: " + h.Command + " --yes", true
	case CheckGuestDHCP:
		return "check that the guest boots and asks DHCP on its first NIC, then run site apply again (or give it longer with " + h.Setting + ")", true
	case ReachStore:
		r := "make one of these addresses reachable, or export VAULT_ADDR with one that is (it is tried after site.cue's addresses)"
		if h.Gate != "" {
			r += ", or pass --ack " + h.Gate + " to defer the steps that need this secret and converge everything else first"
		}
		return r, true
	}
	return "", false
}

// renderHost spells the advice about objects on libvirt hosts.
func (h Hint) renderHost() (string, bool) {
	switch h.Kind {
	case RemoveOtherFirst:
		if h.InRun {
			return "apply that first (those PATHs with --target '" + h.Target + "' --ack " + h.Gate + "), or rename this one", true
		}
		return "rename one of them, or, if " + h.Tenant + " no longer declares it, remove it first with a run of " + h.Tenant +
			"'s file alone (site apply tenants/" + h.Tenant + ".cue --target '" + h.Target + "' --ack " + h.Gate + "), which then lists its removal", true
	case RemoveLeftFirst:
		return "remove it first (site apply tenants/" + h.Tenant + ".cue --target '" + h.Target + "' --ack " + h.Gate + "), then apply again", true
	case Adopt:
		return "to adopt it for tenant " + h.Tenant + ": " + h.Command, true
	case StartPool:
		if h.Command != "" {
			return "start it (" + h.Command + ") or apply its step (site apply --target " + h.Target + "), then apply again", true
		}
		return "apply its step (site apply --target " + h.Target + ") and make sure the image is in it, then apply again", true
	case ProvideImage:
		return "declare it in site.cue (" + h.Spec + ") for site to upload it, or put it there yourself: " + h.Command, true
	case AttachAsRaw:
		r := "if it is a raw disk, have the operator attach it to the VM as raw (" + h.Command + "), or name another volume"
		if h.Spec != "" {
			r = "declare the base it was made on (" + h.Spec + "), or, " + r
		}
		return r, true
	case OtherBase:
		return "start from an image site.cue declares (" + h.Spec + "), or a raw or qcow2 volume that names no other file", true
	case StopFirst:
		return "set running: false and apply (" + h.Gate + "), then apply again to make the change (" + h.Spec + "), then set running: true", true
	case FreeVolume:
		return "name " + h.Spec + ", or " + h.freeVolume(), true
	case ByHand:
		r := "do it yourself: " + h.Command
		if h.Spec != "" {
			r = h.Spec + ", or " + r
		}
		return r, true
	}
	return "", false
}

// renderSetup spells the advice about how site is set up: its build,
// its operator's file, its credentials.
func (h Hint) renderSetup() string {
	switch h.Kind {
	case TrustCA:
		r := "if the server's certificate comes from a private CA, export VAULT_CACERT with that CA's PEM file (or VAULT_CAPATH with a directory of them); if it has expired or names another host, renew it on the server"
		if h.Setting != "" {
			r = "unset " + h.Setting + ", and export VAULT_CACERT with the PEM file of the CA that signed the server's certificate (or VAULT_CAPATH with a directory of them)"
		}
		return r
	case NewSecretID:
		return "a secret_id that expired (secret_id_ttl) or was used up (secret_id_num_uses) is refused this way too: issue a new one (" +
			h.Command + ") into " + h.Setting + ", or check " + h.Spec + " and the mount"
	case GrantToken:
		return "the token in " + h.Setting + " needs " + h.Spec + ": grant it, or use another token"
	case RenewToken:
		if h.Setting == "" {
			return "run again to log in afresh"
		}
		return "export a current token in " + h.Setting
	case WriteSecret:
		if h.Spec != "" {
			return "write it (" + h.Command + ") or fix the reference " + h.Spec
		}
		return "write a new version (" + h.Command + ")"
	case InstallWithLibvirt:
		return "install one that has it with: CGO_ENABLED=1 go install -tags libvirt_dlopen github.com/site-tools/site/cmd/site@latest (it needs a C compiler, not libvirt-dev: libvirt.so.0 is loaded at run time)"
	case CheckOperatorFile:
		return "check " + h.Spec + " in the operator's file (site.cue)"
	case StoreComments:
		r := "run this PowerDNS with a backend that stores comments (launch=gsqlite3, gmysql or gpgsql; pdnsutil b2b-migrate moves the zones over), then run site apply again"
		if h.Spec != "" {
			r += ", " + h.Spec
		}
		return r
	case ReportBug:
		return "this is a bug in this build of site: please report it"
	}
	return ""
}

// freeVolume spells how the volume of a FreeVolume hint is freed.
func (h Hint) freeVolume() string {
	detach := "or detach the volume from it (" + h.Command + ")"
	if h.Tenant == "" {
		return "have the operator remove domain " + h.Object + ", which no site step removes (it carries no site owner element), " + detach
	}
	volume := "that removal keeps the volume, which site did not make for domain " + h.Object
	if h.Deletes {
		volume = "that removal deletes the volume too, which site made for domain " + h.Object
	}
	return "free it: the step that removes domain " + h.Object + " is " + h.Target + " of tenant " + h.Tenant + ", planned once " + h.Tenant +
		"'s spec no longer declares " + h.Object + " (site apply tenants/" + h.Tenant + ".cue --target '" + h.Target + "' --ack " + h.Gate + "; " + volume + "), " + detach
}
