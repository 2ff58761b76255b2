package anthropic

import "math/rand/v2"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomID returns prefix followed by "01" and 22 random base62 characters,
// the shape of the API's own ids (msg_01..., toolu_01...).
func RandomID(prefix string) string {
	b := make([]byte, 0, len(prefix)+24)
	b = append(b, prefix...)
	b = append(b, '0', '1')
	for range 22 {
		b = append(b, base62[rand.IntN(len(base62))])
	}
	return string(b)
}
