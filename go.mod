module github.com/neadmm/neadmm

go 1.24.0

require (
	github.com/stretchr/testify v1.11.1
	golang.org/x/sys v0.38.0
)
