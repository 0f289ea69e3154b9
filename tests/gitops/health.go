package gitops

import (
	"fmt"
	"os"

	lua "github.com/yuin/gopher-lua"
	luajson "layeh.com/gopher-json"
)

// Health is what an Argo CD health.lua returns.
type Health struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// ArgoHealth runs the health script on the object (JSON) like Argo CD does,
// but stricter: without any standard library (Argo CD opens base, table and
// a safe os unless useOpenLibs is set; the script must not need them).
func ArgoHealth(scriptPath string, object []byte) (Health, error) {
	script, err := os.ReadFile(scriptPath)
	if err != nil {
		return Health{}, err
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	obj, err := luajson.Decode(l, object)
	if err != nil {
		return Health{}, fmt.Errorf("decoding the object: %w", err)
	}
	l.SetGlobal("obj", obj)
	if err := l.DoString(string(script)); err != nil {
		return Health{}, fmt.Errorf("running %s: %w", scriptPath, err)
	}
	table, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return Health{}, fmt.Errorf("%s returned %s, not a table", scriptPath, l.Get(-1).Type())
	}
	health := Health{}
	if s, ok := table.RawGetString("status").(lua.LString); ok {
		health.Status = string(s)
	}
	if m, ok := table.RawGetString("message").(lua.LString); ok {
		health.Message = string(m)
	}
	return health, nil
}
