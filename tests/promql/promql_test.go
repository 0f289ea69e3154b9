package promql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

const (
	ruleFile       = "../../deploy/components/prometheus-rule/prometheus_rule.yaml"
	serviceMonitor = "../../deploy/components/service-monitor/service_monitor.yaml"
	dashboardFile  = "../../charts/trussium-operator/dashboards/trussium-operator.json"
	snapshotEnv    = "TRUSSIUM_METRICS_SNAPSHOT"
)

// query is one PromQL expression and where it comes from.
type query struct{ where, expr string }

// strict decodes YAML into out, failing on any field out does not have.
func strict(t *testing.T, path string, out any) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	asJSON, err := yaml.YAMLToJSON(text)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	decoder := json.NewDecoder(bytes.NewReader(asJSON))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(out); err != nil {
		t.Fatalf("%s is not a valid %T: %v", path, out, err)
	}
}

func ruleQueries(t *testing.T) []query {
	var rule monitoringv1.PrometheusRule
	strict(t, ruleFile, &rule)
	var out []query
	for _, group := range rule.Spec.Groups {
		for _, r := range group.Rules {
			out = append(out, query{fmt.Sprintf("alert %s", r.Alert), r.Expr.String()})
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no rules", ruleFile)
	}
	return out
}

// Grafana's variables, replaced by something PromQL accepts.
var (
	rangeVariable = regexp.MustCompile(`\$__(rate_interval|interval|range)`)
	variable      = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*\}?`)
	labelValues   = regexp.MustCompile(`^label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\)$`)
)

func grafanaToPromQL(expr string) string {
	return variable.ReplaceAllString(rangeVariable.ReplaceAllString(expr, "5m"), "x")
}

type panel struct {
	Title   string  `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

func dashboardQueries(t *testing.T) []query {
	text, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(text, &dashboard); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var out []query
	var walk func([]panel)
	walk = func(panels []panel) {
		for _, p := range panels {
			for _, target := range p.Targets {
				out = append(out, query{fmt.Sprintf("panel %q", p.Title), grafanaToPromQL(target.Expr)})
			}
			walk(p.Panels)
		}
	}
	walk(dashboard.Panels)
	for _, v := range dashboard.Templating.List {
		if v.Type != "query" {
			continue
		}
		text := ""
		switch q := v.Query.(type) {
		case string:
			text = q
		case map[string]any:
			text, _ = q["query"].(string)
		}
		m := labelValues.FindStringSubmatch(strings.TrimSpace(text))
		if m == nil {
			t.Fatalf("variable %s: %q is not label_values(<selector>, <label>)", v.Name, text)
		}
		out = append(out, query{fmt.Sprintf("variable %s", v.Name), grafanaToPromQL(m[1])})
	}
	if len(out) < 10 {
		t.Fatalf("%s: only %d queries found", dashboardFile, len(out))
	}
	return out
}

// metricNames parses expr with Prometheus's parser and returns every metric
// name it selects.
func metricNames(expr string) ([]string, error) {
	parsed, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		if selector, ok := node.(*parser.VectorSelector); ok {
			name := selector.Name
			if name == "" {
				for _, m := range selector.LabelMatchers {
					if m.Name == model.MetricNameLabel {
						name = m.Value
					}
				}
			}
			names = append(names, name)
		}
		return nil
	})
	return names, nil
}

// exported reads the scrape the cluster test wrote: every series name.
func exported(t *testing.T) map[string]bool {
	path := os.Getenv(snapshotEnv)
	if path == "" {
		t.Fatalf("%s is not set: make test sets it to the scrape of a chart-installed operator", snapshotEnv)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the scrape of a running operator (written by the chart's cluster test): %v", err)
	}
	textParser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := textParser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	names := map[string]bool{}
	for name, family := range families {
		names[name] = true
		// A histogram's series are <name>_bucket, _sum and _count.
		if family.GetType().String() == "HISTOGRAM" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[name+suffix] = true
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("%s holds only %d metrics", path, len(names))
	}
	return names
}

func TestEveryQueryParsesAndNamesAnExportedMetric(t *testing.T) {
	queries := append(ruleQueries(t), dashboardQueries(t)...)
	have := exported(t)
	used := map[string]bool{}
	for _, q := range queries {
		names, err := metricNames(q.expr)
		if err != nil {
			t.Errorf("%s: %q does not parse: %v", q.where, q.expr, err)
			continue
		}
		if len(names) == 0 {
			t.Errorf("%s: %q selects no metric", q.where, q.expr)
		}
		for _, name := range names {
			used[name] = true
			if !have[name] {
				t.Errorf("%s: %q names %s, which the operator does not export", q.where, q.expr, name)
			}
		}
	}
	list := make([]string, 0, len(used))
	for name := range used {
		list = append(list, name)
	}
	sort.Strings(list)
	t.Logf("%d queries name %d metrics, all exported: %s", len(queries), len(list), strings.Join(list, ", "))
}

func TestTheServiceMonitorIsOne(t *testing.T) {
	var monitor monitoringv1.ServiceMonitor
	strict(t, serviceMonitor, &monitor)
	if len(monitor.Spec.Endpoints) != 1 || !monitor.Spec.Endpoints[0].HonorLabels {
		t.Fatalf("one endpoint that honours the runtimes' namespace label: %+v", monitor.Spec.Endpoints)
	}
}

func TestGrafanaVariablesBecomePromQL(t *testing.T) {
	got := grafanaToPromQL(`rate(x{job=~"$job", namespace=~"${namespace}"}[$__rate_interval])`)
	want := `rate(x{job=~"x", namespace=~"x"}[5m])`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	names, err := metricNames(`sum(rate(a_total[5m])) / sum(b) or vector(0)`)
	if err != nil || strings.Join(names, ",") != "a_total,b" {
		t.Fatalf("names %v, err %v", names, err)
	}
}
