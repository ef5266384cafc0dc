package hint

import "fmt"

// Kind is what the user is told to do.
type Kind int

const (
	// None: no advice.
	None Kind = iota
	// RunAgain: nothing is wrong with the spec; a later run converges.
	RunAgain
	// Acknowledge: the step needs Gate acknowledged; rerun with --ack.
	// When several gates are missing, Spec holds every flag that
	// acknowledges them (Gate is the first), and Command, when known,
	// the command line to add them to.
	Acknowledge
	// ReviewThenAcknowledge: apply found a change behind Gate that the
	// plan shown did not hold: look at it with site diff, then ack it.
	ReviewThenAcknowledge
	// WaitOrUnlock: another run holds (or claims, when Claim) Tenant's
	// apply lock: wait for it, or break it with site unlock.
	WaitOrUnlock
	// RaiseTimeout: a server did not answer within Setting; check that
	// it runs and is reachable, or raise Setting for a slow one.
	RaiseTimeout
	// RunDiffAgain: what apply found moved since the plan was made, so
	// it wrote nothing (more): plan again with site diff, then apply.
	// Command, when set, is what to do first (e.g. find out whose a
	// volume is).
	RunDiffAgain
	// RemoveOtherFirst: a host object (domain, network, volume) is
	// Tenant's, another tenant's: rename one of them, or remove it
	// first with Tenant's removal step Target (--ack Gate). InRun: the
	// other tenant's file is in this run, so these PATHs plan it.
	RemoveOtherFirst
	// RemoveLeftFirst: a host object the tenant no longer declares (a
	// domain renamed?) is in the way: remove it first with its step
	// Target of Tenant's file (--ack Gate), then apply again.
	RemoveLeftFirst
	// Adopt: a host object carries no site owner mark, so site leaves
	// it alone; Command marks it as Tenant's.
	Adopt
	// StartPool: a storage pool does not run, so its volumes cannot be
	// read: start it with Command (when set) or apply its step Target,
	// then apply again.
	StartPool
	// ProvideImage: a base image is missing or half-uploaded: declare
	// it in site.cue (Spec) for site to upload, or put it there by hand
	// (Command).
	ProvideImage
	// AttachAsRaw: a volume's header names another file, and it may be
	// a guest's raw disk: the operator attaches it as raw (Command), or
	// the spec names another volume; Spec, when set, is the base the
	// spec could declare instead.
	AttachAsRaw
	// OtherBase: a base volume is an overlay on another file: start
	// from an image site.cue declares (Spec) or a plain volume.
	OtherBase
	// StopFirst: site does not make this change under a running guest:
	// set running: false and apply (--ack Gate), apply the change (its
	// gate Spec), then set running: true.
	StopFirst
	// ByHand: site will not do this itself: do it by hand (Command:
	// on the host, or in the store), or change the spec (Spec, when
	// set).
	ByHand
	// TrustCA: a Vault's certificate was not trusted: name its CA with
	// VAULT_CACERT (after unsetting Setting, when set), or renew it.
	TrustCA
	// NewSecretID: an AppRole login was refused: issue a secret_id
	// (Command) into Setting, or check the role_id in Spec.
	NewSecretID
	// GrantToken: a Vault token lacks a policy: the token in Setting
	// needs Spec (capabilities on paths); grant it, or use another.
	GrantToken
	// RenewToken: Vault does not accept the token in Setting (expired,
	// revoked, another Vault's): export a current one; Setting "" for
	// an AppRole login, which a run does afresh.
	RenewToken
	// WriteSecret: a secret (or its latest version) is not there: write
	// it with Command, or fix the reference at Spec (when set).
	WriteSecret
	// CheckGuestDHCP: a VM took no DHCP lease in time: check the guest,
	// then run again, or give it longer with Setting.
	CheckGuestDHCP
	// ReachStore: no address of a secret store answered: make one
	// reachable, or defer what needs it with --ack Gate (Gate "" when
	// this run gave it already).
	ReachStore
	// ConfirmWithYes: apply would ask before risky changes, but has no
	// terminal: Command with --yes applies them.
	ConfirmWithYes
	// InstallWithLibvirt: this build has no libvirt: install one that
	// has it.
	InstallWithLibvirt
	// CheckOperatorFile: the operator's file points somewhere wrong:
	// check Spec (the field) in it.
	CheckOperatorFile
	// FreeVolume: a volume the VM would take is attached to domain
	// Object: name Spec (another volume, another base) instead, or free
	// it: Tenant's removal step Target (--ack Gate), which deletes the
	// volume when Deletes, or, with no Tenant, the operator's removal of
	// the domain; or detach it (Command).
	FreeVolume
	// StoreComments: a PowerDNS stores no rrset comments, so site
	// cannot mark its records: run it with a backend that does, then
	// apply again (Spec, when set, says what that apply does).
	StoreComments
	// ReportBug: site cannot go on, and nothing the user did caused it.
	ReportBug
)

// kindNames are the kinds as --format json writes them ("kind").
var kindNames = [...]string{"none", "run_again", "acknowledge", "review_then_acknowledge", "wait_or_unlock",
	"raise_timeout", "run_diff_again", "remove_other_first", "remove_left_first", "adopt", "start_pool", "provide_image",
	"attach_as_raw", "other_base", "stop_first", "by_hand", "trust_ca", "new_secret_id", "grant_token", "renew_token", "write_secret", "check_guest_dhcp",
	"reach_store", "confirm_with_yes", "install_with_libvirt", "check_operator_file", "free_volume", "store_comments", "report_bug"}

// String is the kind's name in site's JSON output, e.g. "run_again".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Kinds lists every kind but None, in order (for the help topic's
// test and completion).
func Kinds() []Kind {
	out := make([]Kind, 0, len(kindNames)-1)
	for k := RunAgain; int(k) < len(kindNames); k++ {
		out = append(out, k)
	}
	return out
}
