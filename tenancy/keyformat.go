package tenancy

import (
	"crypto/rand"
	"math/big"
)

// Key format: "rk_" followed by KeyBodyLen base62 characters.
const (
	KeyPrefix     = "rk_"
	KeyBodyLen    = 40
	keyLen        = len(KeyPrefix) + KeyBodyLen
	displayLen    = len(KeyPrefix) + 8
	base62Charset = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

var base62Max = big.NewInt(int64(len(base62Charset)))

// GenerateKey returns a fresh rk_ key from crypto/rand (about 238 bits).
func GenerateKey() string {
	b := make([]byte, keyLen)
	copy(b, KeyPrefix)
	for i := len(KeyPrefix); i < keyLen; i++ {
		n, err := rand.Int(rand.Reader, base62Max)
		if err != nil {
			panic("tenancy: crypto/rand: " + err.Error())
		}
		b[i] = base62Charset[n.Int64()]
	}
	return string(b)
}

// ParseKey checks the format of a presented key cheaply (no allocation on
// failure) and returns its hex SHA-256 hash and display prefix. Anything
// that is not exactly "rk_" + 40 base62 characters is ErrUnauthorized.
func ParseKey(presented string) (hash, prefix string, err error) {
	if len(presented) != keyLen || presented[:len(KeyPrefix)] != KeyPrefix {
		return "", "", ErrUnauthorized
	}
	for i := len(KeyPrefix); i < keyLen; i++ {
		if !isBase62(presented[i]) {
			return "", "", ErrUnauthorized
		}
	}
	return sha256Hex(presented), presented[:displayLen], nil
}

func isBase62(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
}
