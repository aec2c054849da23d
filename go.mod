module github.com/neadmm/neadmm

go 1.24.0

require golang.org/x/sys v0.38.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
