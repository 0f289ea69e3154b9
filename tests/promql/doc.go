// Package promql checks the queries the project ships — the alerts of the
// PrometheusRule and every panel and variable of the Grafana dashboard —
// with Prometheus's own PromQL parser, and that every metric they name is
// one the operator really exports: a cluster test scrapes a running operator
// installed by the Helm chart and writes the exposition to
// $TRUSSIUM_METRICS_SNAPSHOT (make test sets it). It also decodes the
// ServiceMonitor and the PrometheusRule strictly into the Prometheus
// Operator's own Go types, so that a misspelled field fails here rather than
// being dropped by a cluster.
package promql
