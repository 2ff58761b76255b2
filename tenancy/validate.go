package tenancy

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Input bounds.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256 // bytes; bounds the cost of hashing
	maxEmailLen    = 254
	maxNameLen     = 100
	maxSlugLen     = 48
)

// NormalizeEmail validates an address and returns it lower-cased.
func NormalizeEmail(field, email string) (string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", invalid(field, "is required")
	}
	if len(email) > maxEmailLen {
		return "", invalid(field, "is too long")
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return "", invalid(field, "is not a valid email address")
	}
	return strings.ToLower(email), nil
}

func validatePassword(field, pw string) error {
	if utf8.RuneCountInString(pw) < MinPasswordLen {
		return invalid(field, "must be at least 10 characters")
	}
	if len(pw) > MaxPasswordLen {
		return invalid(field, "must be at most 256 bytes")
	}
	return nil
}

// cleanName trims a display name and checks its length and characters.
func cleanName(field, s string, required bool) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if required {
			return "", invalid(field, "is required")
		}
		return "", nil
	}
	if utf8.RuneCountInString(s) > maxNameLen || !utf8.ValidString(s) {
		return "", invalid(field, "must be at most 100 characters")
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "", invalid(field, "must not contain control characters")
		}
	}
	return s, nil
}

// Slugify turns a name into a slug: lower-case ASCII letters, digits and
// single dashes, at most 48 characters; "org" when nothing is left.
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= maxSlugLen {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxSlugLen {
		s = strings.Trim(s[:maxSlugLen], "-")
	}
	if s == "" {
		return "org"
	}
	return s
}
