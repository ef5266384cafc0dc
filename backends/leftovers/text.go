package leftovers

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/site-tools/site/compiler/visible"
	"github.com/site-tools/site/compiler/words"
)

// WriteJSON writes r as the versioned JSON report.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes r for a reader: per provider and host what is left
// over, whose it is, and the commands that remove it. Names a server
// answered with are shown escaped (visible), so none can start a line
// of its own or drive the terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.NoTenantFile {
		b.WriteString("No tenant file was loaded (./tenants holds none): what site marked is judged against site.cue alone; what a tenant it still grants marked is not judged.\n")
	}
	for _, p := range r.Providers {
		writeProvider(&b, p)
	}
	for _, h := range r.Hosts {
		writeHost(&b, h)
	}
	b.WriteString(r.summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeProvider(b *strings.Builder, p ProviderReport) {
	head := fmt.Sprintf("provider %s (%s)", p.Name, p.Kind)
	switch {
	case p.SameAs != "":
		fmt.Fprintf(b, "%s: the same server as provider %s, looked at there\n", head, p.SameAs)
		return
	case p.Error != "":
		fmt.Fprintf(b, "%s: its zones could not be listed, so nothing is known of them: %s\n", head, visible.Short(p.Error))
		return
	}
	if p.Read == 0 {
		fmt.Fprintf(b, "%s: %s listed, each declared on it by a tenant", head, words.Count(p.Listed, "zone"))
	} else {
		fmt.Fprintf(b, "%s: %s listed, %d read (no tenant declares them on it)", head, words.Count(p.Listed, "zone"), p.Read)
	}
	if len(p.Zones) == 0 {
		b.WriteString(": nothing left over\n")
		return
	}
	b.WriteString("\n")
	for _, z := range p.Zones {
		writeZone(b, z)
	}
}

func writeZone(b *strings.Builder, z ZoneReport) {
	name := visible.String(z.Zone)
	if z.Error != "" {
		fmt.Fprintf(b, "  zone %s: could not be read, so nothing is known of it: %s\n", name, visible.Short(z.Error))
		return
	}
	where := "no tenant declares it"
	switch {
	case z.NotJudged != "":
		where = "not judged: " + visible.String(z.NotJudged)
	case len(z.DeclaredOn) > 0:
		where = "declared by " + strings.Join(z.DeclaredOn, ", ") + ", not here"
	}
	fmt.Fprintf(b, "  zone %s: %s\n", name, where)
	for _, o := range z.Owners {
		whose := "tenant " + o.Tenant
		if !o.Loaded {
			whose += " (its file was not loaded)"
		}
		names := make([]string, len(o.Names))
		for i, n := range o.Names {
			names[i] = visible.String(n)
		}
		more := ""
		if n := o.Count - len(o.Names); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(b, "    %s: %s: %s%s\n", whose, words.Count(o.Count, "marked RRset"), strings.Join(names, ", "), more)
	}
	if z.Remove != "" {
		fmt.Fprintf(b, "    take the markers off (the records stay, no tenant's): %s\n", z.Remove)
	}
}

func writeHost(b *strings.Builder, h HostReport) {
	head := fmt.Sprintf("host %s (%s)", h.Name, h.URI)
	switch {
	case h.SameAs != "":
		fmt.Fprintf(b, "%s: the same URI as host %s, looked at there\n", head, h.SameAs)
		return
	case h.Error != "":
		fmt.Fprintf(b, "%s: could not be read, so nothing is known of it: %s\n", head, visible.Short(h.Error))
		return
	}
	fmt.Fprintf(b, "%s: %s", head, words.Count(h.Listed, "domain or network", "domains or networks")+" with an owner element")
	if len(h.Leftovers) == 0 && len(h.Pools) == 0 && h.PoolsError == "" {
		b.WriteString(": nothing left over\n")
		return
	}
	b.WriteString("\n")
	for _, l := range h.Leftovers {
		writeResource(b, l)
	}
	for _, p := range h.Pools {
		writePool(b, p)
	}
	if h.PoolsError != "" {
		fmt.Fprintf(b, "  its storage pools could not be listed, so nothing is known of the uploads they hold: %s\n", visible.Short(h.PoolsError))
	}
}

func writePool(b *strings.Builder, p PoolReport) {
	head := "  pool " + visible.String(p.Pool)
	if p.Error != "" {
		fmt.Fprintf(b, "%s: its volumes could not be listed, so nothing is known of them: %s\n", head, visible.Short(p.Error))
		return
	}
	var parts []string
	if len(p.Uploads) > 0 {
		parts = append(parts, words.Count(len(p.Uploads), "upload")+" that did not finish, which site's markers prove")
	}
	if len(p.Seeds) > 0 {
		parts = append(parts, words.Count(len(p.Seeds), "cloud-init seed")+" site made that no domain on this host has or lists")
	}
	fmt.Fprintf(b, "%s: %s\n", head, strings.Join(parts, "; "))
	for _, u := range p.Uploads {
		writeUpload(b, u)
	}
	for _, s := range p.Seeds {
		vm := visible.Short(s.VM)
		fmt.Fprintf(b, "    seed %s, made for VM %s (its bytes prove site made it): no tenant declares VM %s on this host, and the domain it was made for is gone\n", visible.String(s.Volume), vm, vm)
		b.WriteString("      that domain's other disks carry no mark of site's and are not reported: look for them by hand\n")
		if s.NotJudged != "" {
			fmt.Fprintf(b, "    not judged: %s\n", visible.String(s.NotJudged))
			continue
		}
		b.WriteString("    remove by hand:\n")
		for _, c := range s.Remove {
			fmt.Fprintf(b, "      %s\n", visible.String(c))
		}
	}
}

func writeUpload(b *strings.Builder, u UploadReport) {
	what := "base image"
	if u.Seed {
		what = "cloud-init seed"
	}
	name := visible.String(u.Volume)
	if u.Volume == "" {
		name = "whose name only its markers' hash keeps"
	}
	state := "partial"
	if !u.Partial {
		state = "never made: only its markers are left"
	}
	markers := make([]string, len(u.Markers))
	for i, m := range u.Markers {
		markers[i] = visible.String(m)
	}
	fmt.Fprintf(b, "    %s %s (%s; markers %s)\n", what, name, state, strings.Join(markers, ", "))
	fmt.Fprintf(b, "      %s; left by %s\n", uploadWhose(u), uploadRun(u))
	if u.NotJudged != "" {
		fmt.Fprintf(b, "    not judged: %s\n", visible.String(u.NotJudged))
		return
	}
	b.WriteString("    remove by hand:\n")
	for _, c := range u.Remove {
		fmt.Fprintf(b, "      %s\n", visible.String(c))
	}
}

// uploadWhose says why no run takes the upload up again.
func uploadWhose(u UploadReport) string {
	switch {
	case u.Tenant != "" && !u.Loaded:
		return fmt.Sprintf("tenant %s's, whose file was not loaded", visible.Short(u.Tenant))
	case u.Tenant != "":
		return fmt.Sprintf("tenant %s's, which declares no VM on this host any more", visible.Short(u.Tenant))
	case u.Seed:
		return "its marker names no tenant (an older site wrote it)"
	}
	return "site.cue does not declare this image on this host any more"
}

// uploadRun names the run that left the upload, and whether it may be
// at it still.
func uploadRun(u UploadReport) string {
	if u.RunGone {
		return visible.Short(u.Run) + ", whose process is gone"
	}
	return visible.Short(u.Run) + ", which may still be uploading: wait while the newest marker's capacity (virsh vol-info) grows, as it does every 5 s while a run uploads"
}

func writeResource(b *strings.Builder, l Resource) {
	what := "VM"
	if l.Kind == "network" {
		what = "network"
	}
	whose := fmt.Sprintf("tenant %s, which declares no %s on this host any more", visible.Short(l.Tenant), what)
	if !l.Loaded {
		whose = fmt.Sprintf("tenant %s, whose file was not loaded", visible.Short(l.Tenant))
	}
	state := ""
	if l.Active {
		state = map[string]string{"domain": "; running", "network": "; active"}[l.Kind]
	}
	fmt.Fprintf(b, "  %s %s (uuid %s; %s%s)\n", l.Kind, visible.String(l.Name), visible.String(l.UUID), whose, state)
	if len(l.Volumes) > 0 {
		vols := make([]string, len(l.Volumes))
		for i, v := range l.Volumes {
			vols[i] = visible.String(v)
		}
		fmt.Fprintf(b, "    volumes site made for it: %s\n", strings.Join(vols, ", "))
	}
	if l.NotJudged != "" {
		fmt.Fprintf(b, "    not judged: %s\n", visible.String(l.NotJudged))
		return
	}
	if len(l.InUse) > 0 {
		used := make([]string, len(l.InUse))
		for i, u := range l.InUse {
			used[i] = visible.String(u)
		}
		fmt.Fprintf(b, "    in use, so not removed while it is: %s\n", strings.Join(used, "; "))
	}
	if len(l.Remove) == 0 {
		return
	}
	b.WriteString("    remove by hand:\n")
	for _, c := range l.Remove {
		fmt.Fprintf(b, "      %s\n", visible.String(c))
	}
}

// summary is the report's last line.
func (r *Report) summary() string {
	zones, res, unread, unjudged := 0, 0, 0, 0
	for _, p := range r.Providers {
		if p.Error != "" {
			unread++
		}
		for _, z := range p.Zones {
			switch {
			case z.Error != "":
				unread++
			case z.NotJudged != "":
				unjudged++
			default:
				zones++
			}
		}
	}
	uploads, seeds, pools, upUnjudged := 0, 0, 0, 0
	for _, h := range r.Hosts {
		if h.Error != "" {
			unread++
		}
		for _, l := range h.Leftovers {
			if l.NotJudged != "" {
				unjudged++
			} else {
				res++
			}
		}
		if h.PoolsError != "" {
			pools++
		}
		for _, p := range h.Pools {
			if p.Error != "" {
				pools++
			}
			for _, u := range p.Uploads {
				if u.NotJudged != "" {
					upUnjudged++
				} else {
					uploads++
				}
			}
			for _, sd := range p.Seeds {
				if sd.NotJudged != "" {
					upUnjudged++
				} else {
					seeds++
				}
			}
		}
	}
	var parts []string
	if zones > 0 {
		parts = append(parts, words.Count(zones, "zone")+" with owner markers no tenant declares there")
	}
	if res > 0 {
		parts = append(parts, words.Count(res, "domain or network", "domains or networks")+" whose tenant declares nothing of the kind on its host")
	}
	if uploads > 0 {
		parts = append(parts, words.Count(uploads, "upload")+" that did not finish and no run takes up")
	}
	if seeds > 0 {
		parts = append(parts, words.Count(seeds, "cloud-init seed")+" whose domain is gone")
	}
	unknown := unknownPhrase(unread, pools, unjudged, upUnjudged)
	switch {
	case unknown != "" && len(parts) > 0:
		return fmt.Sprintf("Left over: %s; and %s, so there may be more.", strings.Join(parts, "; "), unknown)
	case unknown != "":
		return fmt.Sprintf("Nothing left over where site could read, but %s.", unknown)
	case len(parts) > 0:
		return "Left over: " + strings.Join(parts, "; ") + "."
	}
	return fmt.Sprintf("Nothing left over on %s and %s.", words.Count(len(r.Providers), "provider"), words.Count(len(r.Hosts), "host"))
}

// unknownPhrase says what the report cannot speak for: what could not
// be read (pools among it), and what was read but not judged (uploads
// and seeds apart); "" when there is none.
func unknownPhrase(unread, pools, unjudged, uploads int) string {
	var parts []string
	switch {
	case pools > 0:
		parts = append(parts, words.Count(unread+pools, "provider, zone, host or pool", "providers, zones, hosts or pools")+" could not be read")
	case unread > 0:
		parts = append(parts, words.Count(unread, "provider, zone or host", "providers, zones or hosts")+" could not be read")
	}
	if unjudged > 0 {
		parts = append(parts, words.Count(unjudged, "zone, domain or network was", "zones, domains or networks were")+" not judged")
	}
	if uploads > 0 {
		parts = append(parts, words.Count(uploads, "upload or seed was", "uploads or seeds were")+" not judged")
	}
	return strings.Join(parts, " and ")
}
