package openaichat

import "math/rand/v2"

const alphanumeric = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomID returns prefix followed by random alphanumeric characters in the
// shape of the API's own ids: 29 for "chatcmpl-", 24 otherwise ("call_").
func RandomID(prefix string) string {
	n := 24
	if prefix == "chatcmpl-" {
		n = 29
	}
	b := make([]byte, 0, len(prefix)+n)
	b = append(b, prefix...)
	for range n {
		b = append(b, alphanumeric[rand.IntN(len(alphanumeric))])
	}
	return string(b)
}
