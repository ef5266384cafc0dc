package libvirttest

import "errors"

// BuildBootImage is BootImage for a program outside the tests (make
// demo-full's mkbootimage): it returns the path of the same cached
// image, building it when missing, and says what to install when
// something it is made of is missing.
func BuildBootImage() (string, error) {
	bootOnce.Do(func() { bootOnce.path, bootOnce.need, bootOnce.err = buildBootImage() })
	if bootOnce.need != "" {
		return "", errors.New(bootOnce.need)
	}
	return bootOnce.path, bootOnce.err
}
