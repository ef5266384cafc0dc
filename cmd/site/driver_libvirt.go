package main

import (
	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/compiler/graph"
)

func init() {
	d := libvirt.NewFromEnv()
	kindDrivers[graph.KindVM] = d.VMs()
	kindDrivers[graph.KindNetwork] = d.Networks()
	status := "available"
	if err := libvirt.Available(); err != nil {
		status = "unavailable: " + err.Error()
	}
	backendNames["libvirt"] = "libvirt (dlopen; " + status + "); host URIs rewritten by " + libvirt.URIMapEnv
}
