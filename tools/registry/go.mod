module trussium.io/tools/registry

go 1.26.8

tool trussium.io/tools/registry

require github.com/google/go-containerregistry v0.22.1
