package gitops

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// KStatus computes kstatus for the object (JSON), as Flux and kpt do.
func KStatus(object []byte) (*status.Result, error) {
	// As the API server's clients decode it: integers as int64.
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(object); err != nil {
		return nil, err
	}
	return status.Compute(u)
}
