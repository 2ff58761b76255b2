package tenancy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/insecurecleartextkeyset"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/tink"
)

// KeysetSource loads the master keyset (KEK). The vault calls it once at
// start and again, rate limited, when it meets a data key wrapped by a
// master key it does not know (after `heddle vault rotate`).
type KeysetSource interface {
	LoadKeyset() (*keyset.Handle, error)
}

type staticKeyset struct{ h *keyset.Handle }

func (s staticKeyset) LoadKeyset() (*keyset.Handle, error) { return s.h, nil }

// StaticKeyset is a source that always returns h (HEDDLE_MASTER_KEYSET
// given inline; it cannot pick up a rotation without a restart).
func StaticKeyset(h *keyset.Handle) KeysetSource { return staticKeyset{h} }

type fileKeyset struct{ path string }

func (f fileKeyset) LoadKeyset() (*keyset.Handle, error) { return ReadMasterKeysetFile(f.path) }

// FileKeyset is a source reading the keyset file at path on every load
// (HEDDLE_MASTER_KEYSET_FILE).
func FileKeyset(path string) KeysetSource { return fileKeyset{path} }

// ParseMasterKeyset parses a cleartext master keyset in Tink's JSON keyset
// format and checks it yields an AEAD. Errors wrap ErrMasterKeyset and never
// include key material.
func ParseMasterKeyset(jsonKeyset []byte) (*keyset.Handle, error) {
	h, err := insecurecleartextkeyset.Read(keyset.NewJSONReader(bytes.NewReader(jsonKeyset)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a Tink JSON keyset", ErrMasterKeyset)
	}
	if _, err := aead.New(h); err != nil {
		return nil, fmt.Errorf("%w: keyset is not an AEAD keyset", ErrMasterKeyset)
	}
	return h, nil
}

// ReadMasterKeysetFile reads and parses the master keyset file at path.
func ReadMasterKeysetFile(path string) (*keyset.Handle, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	h, err := ParseMasterKeyset(b)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return h, nil
}

// NewMasterKeyset generates a master keyset with one AES256-GCM key.
func NewMasterKeyset() (*keyset.Handle, error) {
	h, err := keyset.NewHandle(aead.AES256GCMKeyTemplate())
	if err != nil {
		return nil, fmt.Errorf("%w: generate: %w", ErrMasterKeyset, err)
	}
	return h, nil
}

// MasterKeysetJSON renders h as a cleartext Tink JSON keyset.
func MasterKeysetJSON(h *keyset.Handle) ([]byte, error) {
	var buf bytes.Buffer
	if err := insecurecleartextkeyset.Write(h, keyset.NewJSONWriter(&buf)); err != nil {
		return nil, fmt.Errorf("%w: encode: %w", ErrMasterKeyset, err)
	}
	return buf.Bytes(), nil
}

// EnsureDevKeyset creates a master keyset file at path (mode 0600, parent
// directory 0700) if none exists, and reports whether it created one. An
// existing file is parsed so a broken one fails early.
func EnsureDevKeyset(path string) (bool, error) {
	if _, err := os.Stat(path); err == nil {
		_, err := ReadMasterKeysetFile(path)
		return false, err
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	h, err := NewMasterKeyset()
	if err != nil {
		return false, err
	}
	b, err := MasterKeysetJSON(h)
	if err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process created it first; use theirs.
		_, err := ReadMasterKeysetFile(path)
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return false, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return false, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	return true, nil
}

// writeKeysetFileAtomic replaces path with h (mode 0600) through a temporary
// file in the same directory, fsync and rename, so readers see the old or
// the new keyset, never a torn one.
func writeKeysetFileAtomic(path string, h *keyset.Handle) error {
	b, err := MasterKeysetJSON(h)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".heddle-keyset-*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if _, err := tmp.Write(b); err != nil {
		return fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// kekState is a loaded master keyset.
type kekState struct {
	aead    tink.AEAD
	primary uint32
	ids     map[uint32]bool
}

func newKEKState(h *keyset.Handle) (*kekState, error) {
	a, err := aead.New(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMasterKeyset, err)
	}
	info := h.KeysetInfo()
	st := &kekState{aead: a, primary: info.GetPrimaryKeyId(), ids: make(map[uint32]bool)}
	for _, k := range info.GetKeyInfo() {
		st.ids[k.GetKeyId()] = true
	}
	return st, nil
}
