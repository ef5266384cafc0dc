//go:build cgo && libvirt_dlopen

package storage

import (
	"fmt"
	"io"
	"os"
	"path"
	"strconv"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/qcow2"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A base image site.cue declares is uploaded once, by a step of its own
// after its pool's, from a file where site runs: a missing volume is
// created and the file streamed into it (virStorageVolUpload); an
// existing one is never replaced, so a changed file needs a new name.

// ImageFile is what site reads of an image file before uploading it.
type ImageFile struct {
	Format   string // "qcow2" or "raw"
	Capacity uint64 // what the guest sees: qcow2's virtual size, else the file's
	Bytes    int64  // the file's size, what is uploaded
}

// ReadImageFile reads the format and size of an image file.
func ReadImageFile(img *model.Image) (*ImageFile, error) {
	f, err := os.Open(img.Source)
	if err != nil {
		return nil, fmt.Errorf("base image %s for pool %s on %s: %w; put the file there or fix its source in site.cue", img.Name, img.Pool.Name, img.Pool.Host, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("base image %s: %w", img.Source, err)
	}
	out := &ImageFile{Format: "raw", Capacity: uint64(st.Size()), Bytes: st.Size()}
	head := make([]byte, qcow2.SizeEnd)
	if n, _ := io.ReadFull(f, head); n == len(head) {
		if h, ok := qcow2.Parse(head); ok {
			out.Format, out.Capacity = "qcow2", h.Size
		}
	}
	return out, nil
}

// ImagePath is where a dir pool keeps a volume.
func ImagePath(img *model.Image) string { return path.Join(img.Pool.Path, img.Name) }

// imageDetail is an image step's plan for Apply.
type imageDetail struct {
	step *graph.Step
	img  *model.Image
	file *ImageFile // nil while the volume could not be read
	// replan: the pool did not exist or did not run when this was
	// planned, so Apply plans the step again once the pool's step has
	// made or started it, and uploads only when the volume is missing.
	replan bool
}

// planImage plans the upload of a declared base image that its pool
// lacks.
func (pd Driver) planImage(step *graph.Step) (*backends.StepPlan, *imageDetail, error) {
	img := step.Image
	h, err := pd.observe(img.Pool.Host)
	if err != nil {
		return nil, nil, err
	}
	vol, err := h.Uploaded(img.Pool.Name, img.Name, img.Pool)
	if err != nil {
		return nil, nil, err
	}
	sp := &backends.StepPlan{Step: step, Fingerprint: hosts.Fingerprint(strconv.FormatBool(vol.Exists), strconv.FormatBool(vol.Partial), vol.NoPool)}
	if vol.Exists {
		return sp, nil, nil // uploaded once, never replaced
	}
	key := VolumeKey(img.Pool.Host, img.Pool.Name, img.Name)
	if vol.Unread() {
		// The file is not read either: an image already in the pool
		// needs none.
		before, after := UnreadValues(img.Pool.Name, vol)
		sp.Changes = append(sp.Changes, plan.Change{Key: key, Step: step.ID, Phase: step.Phase,
			Action: plan.ActionUpdate, Impact: plan.ImpactNone,
			Reason: UnreadReason(img.Pool.Name, "base image declared in site.cue, uploaded once from "+img.Source+" if the pool lacks it", vol),
			Before: before, After: after})
		return sp, &imageDetail{step: step, img: img, replan: true}, nil
	}
	f, err := ReadImageFile(img)
	if err != nil {
		return nil, nil, err
	}
	reason := "base image declared in site.cue, uploaded once from " + img.Source
	if vol.Partial {
		reason += PartialReason(vol.Markers)
	}
	sp.Changes = append(sp.Changes, plan.Change{Key: key, Step: step.ID, Phase: step.Phase,
		Action: plan.ActionCreate, Impact: plan.ImpactNone, Reason: reason,
		After: map[string]any{"format": f.Format, "size": domain.SizeString(f.Capacity)}})
	return sp, &imageDetail{step: step, img: img, file: f, replan: vol.NoPool != ""}, nil
}

// replanImage plans an image step again at apply time, once its pool's
// step has made or started the pool (see imageDetail.replan): nil when
// the volume is there by now.
func (pd Driver) replanImage(det *imageDetail) (*imageDetail, error) {
	img := det.img
	pd.s.Forget(img.Pool.Host) // observed before the pool's step ran
	_, again, err := pd.planImage(det.step)
	if err != nil {
		return nil, fmt.Errorf("base image %s: planning it again once pool %s runs: %w", img.Name, img.Pool.Name, err)
	}
	if again != nil && again.replan {
		h := hint.Hint{Kind: hint.StartPool, Command: fmt.Sprintf("virsh -c %s pool-start %s", img.Pool.Host, img.Pool.Name), Target: "pool/" + img.Pool.Host + "/" + img.Pool.Name}
		return nil, hint.Errorf(h, "base image %s: storage pool %s on %s still does not run, so the image cannot be read or uploaded: nothing was changed",
			img.Name, img.Pool.Name, img.Pool.Host)
	}
	return again, nil
}

// applyImage creates the volume and streams the file into it, under
// its marker (Writer.CreateUploaded): a volume whose upload did not finish is
// never taken for the image.
func (pd Driver) applyImage(det *imageDetail, run *backends.Run) error {
	img := det.img
	defer pd.s.Forget(img.Pool.Host)
	if det.replan {
		again, err := pd.replanImage(det)
		if err != nil || again == nil {
			return err // nil: the image is in the pool, and never replaced
		}
		det = again
	}
	c, err := pd.s.Conn(img.Pool.Host)
	if err != nil {
		return err
	}
	a := &Writer{Set: pd.s, C: c, Host: img.Pool.Host, Run: run}
	f, err := os.Open(img.Source)
	if err != nil {
		return fmt.Errorf("base image %s: %w", img.Name, err)
	}
	defer f.Close()
	def := libvirtxml.StorageVolume{
		Name:     img.Name,
		Capacity: &libvirtxml.StorageVolumeSize{Value: det.file.Capacity, Unit: "bytes"},
		Target:   &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: det.file.Format}},
	}
	if err := a.CreateUploaded(img.Pool.Name, def, f, det.file.Bytes); err != nil {
		return fmt.Errorf("base image %s from %s: %w", img.Name, img.Source, err)
	}
	return nil
}
