// Command registry serves an OCI distribution registry for tests:
// go-containerregistry's implementation (pkg/registry), kept in memory, with
// the OCI 1.1 referrers API turned on (crane's `registry serve` leaves it
// off). It listens on 127.0.0.1 at the port given (0: any free one), prints
// "serving on <address>" once it accepts connections, and runs until killed.
// (Its referrers API reports a referrer's config media type as the
// artifactType, not the manifest's artifactType field.)
//
//	registry [port]
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	port := "0"
	if len(os.Args) > 1 {
		port = os.Args[1]
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving on %s\n", listener.Addr())
	server := &http.Server{
		Handler:           registry.New(registry.WithReferrersSupport(true)),
		ReadHeaderTimeout: 5 * time.Second,
	}
	log.Fatal(server.Serve(listener))
}
