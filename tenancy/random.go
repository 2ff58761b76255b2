package tenancy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
)

// newID returns a time-ordered UUIDv7 string.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// crypto/rand failing is unrecoverable for a security service.
		panic(fmt.Sprintf("tenancy: uuid: %v", err))
	}
	return id.String()
}

// randomToken returns n random bytes, base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("tenancy: crypto/rand: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// sha256Hex is the hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
