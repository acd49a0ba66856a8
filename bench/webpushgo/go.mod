module github.com/attn-dev/attn/bench/webpushgo

go 1.26.8

require github.com/SherClockHolmes/webpush-go v1.4.0

require (
	github.com/golang-jwt/jwt/v5 v5.2.1 // indirect
	golang.org/x/crypto v0.31.0 // indirect
)
