package main

import "github.com/site-tools/site/compiler/plan"

// parseAck and gatesOf are plan.ParseAck and plan.GatesOf, which say
// which command takes which gate with --ack, under the names cmd/site's
// files call them by.
var (
	parseAck = plan.ParseAck
	gatesOf  = plan.GatesOf
)
