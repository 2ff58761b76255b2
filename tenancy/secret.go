package tenancy

import "log/slog"

// Secret is a decrypted provider credential for the data plane. Value is the
// plaintext: pass it to the provider and nowhere else. String, GoString,
// LogValue and MarshalJSON all redact it, so a stray log line or %v cannot
// leak it.
type Secret struct {
	ID       string
	Provider string
	Label    string
	Value    string
	BaseURL  string
}

const redacted = "[redacted]"

// String returns a redacted description.
func (s Secret) String() string {
	return "tenancy.Secret{id=" + s.ID + " provider=" + s.Provider + " value=" + redacted + "}"
}

// GoString redacts %#v too.
func (s Secret) GoString() string { return s.String() }

// LogValue implements slog.LogValuer without the value.
func (s Secret) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("id", s.ID), slog.String("provider", s.Provider),
		slog.String("label", s.Label), slog.String("value", redacted))
}

// MarshalJSON renders the secret without its value.
func (s Secret) MarshalJSON() ([]byte, error) {
	return []byte(`{"id":` + jsonString(s.ID) + `,"provider":` + jsonString(s.Provider) + `,"value":"` + redacted + `"}`), nil
}

func jsonString(s string) string {
	const hex = "0123456789abcdef"
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
