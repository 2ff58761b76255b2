package wordvec

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Magic opens every vector file; FormatVersion is the layout this package
// reads and writes.
const (
	Magic         = "HDWV"
	FormatVersion = 1
)

// ErrFile is wrapped when a vector file cannot be read (missing, truncated,
// corrupt, another format version).
var ErrFile = errors.New("wordvec: bad vector file")

// headerSize is magic, version, dim, count and vocabulary size.
const headerSize = 4 + 4*4

// Vectors is the content of a vector file: a frequency-ordered vocabulary
// (rank 0 the most frequent word) and one vector per word.
type Vectors struct {
	// Dim is the vector length.
	Dim int
	// VocabSize is the size of the source vocabulary the words were ranked
	// in (at least len(Words)); word frequencies are estimated from rank
	// over it.
	VocabSize int
	// Words in frequency order, unique, each 1-255 bytes.
	Words []string
	// Vecs holds len(Words)*Dim values, word i at [i*Dim, (i+1)*Dim).
	Vecs []float32
	// Checksum is the SHA-256 of the file (set by Read and Write).
	Checksum string
}

// Write encodes v: the header, the words (a length byte and the bytes
// each), then per word a float32 scale and Dim int8 values (value =
// scale*q, scale = max|x|/127), then the SHA-256 of everything before it.
// It sets v.Checksum.
func (v *Vectors) Write(w io.Writer) error {
	if err := v.check(); err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(Magic)
	for _, n := range []int{FormatVersion, v.Dim, len(v.Words), v.VocabSize} {
		binary.Write(&buf, binary.LittleEndian, uint32(n))
	}
	for _, word := range v.Words {
		buf.WriteByte(byte(len(word)))
		buf.WriteString(word)
	}
	row := make([]byte, v.Dim)
	for i := range v.Words {
		x := v.Vecs[i*v.Dim : (i+1)*v.Dim]
		var m float32
		for _, f := range x {
			m = max(m, float32(math.Abs(float64(f))))
		}
		scale := m / 127
		for j, f := range x {
			q := 0.0
			if scale > 0 {
				q = math.Round(float64(f / scale))
			}
			row[j] = byte(int8(max(-127, min(127, q))))
		}
		binary.Write(&buf, binary.LittleEndian, math.Float32bits(scale))
		buf.Write(row)
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	v.Checksum = hex.EncodeToString(sum[:])
	_, err := w.Write(buf.Bytes())
	return err
}

func (v *Vectors) check() error {
	if v.Dim <= 0 || v.Dim > 4096 {
		return fmt.Errorf("%w: dimension %d", ErrFile, v.Dim)
	}
	if len(v.Words) == 0 || len(v.Vecs) != len(v.Words)*v.Dim || v.VocabSize < len(v.Words) || v.VocabSize > math.MaxUint32 {
		return fmt.Errorf("%w: %d words, %d values, vocabulary %d", ErrFile, len(v.Words), len(v.Vecs), v.VocabSize)
	}
	for _, w := range v.Words {
		if len(w) == 0 || len(w) > 255 {
			return fmt.Errorf("%w: word %q is not 1-255 bytes", ErrFile, w)
		}
	}
	return nil
}

// ReadFile reads a vector file (see Vectors.Write).
func ReadFile(path string) (*Vectors, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFile, err)
	}
	v, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Parse decodes a vector file's bytes, verifying its checksum first.
func Parse(data []byte) (*Vectors, error) {
	if len(data) < headerSize+sha256.Size || string(data[:4]) != Magic {
		return nil, fmt.Errorf("%w: not a wordvec file (too short or no %q header)", ErrFile, Magic)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	got := sha256.Sum256(body)
	if !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or corrupt)", ErrFile)
	}
	u32 := func(off int) int { return int(binary.LittleEndian.Uint32(body[off:])) }
	if ver := u32(4); ver != FormatVersion {
		return nil, fmt.Errorf("%w: format version %d, this binary reads %d", ErrFile, ver, FormatVersion)
	}
	v := &Vectors{Dim: u32(8), VocabSize: u32(16), Checksum: hex.EncodeToString(sum)}
	count := u32(12)
	if v.Dim <= 0 || v.Dim > 4096 || count <= 0 || count > len(body) {
		return nil, fmt.Errorf("%w: dimension %d, %d words", ErrFile, v.Dim, count)
	}
	// Each word takes at least a length byte, one byte, a scale and Dim
	// values: a count the file cannot hold is refused before it sizes
	// anything.
	if count*(2+4+v.Dim) > len(body)-headerSize {
		return nil, fmt.Errorf("%w: %d words of dimension %d do not fit in %d bytes (truncated or corrupt)", ErrFile, count, v.Dim, len(body))
	}
	off := headerSize
	v.Words = make([]string, count)
	for i := range v.Words {
		if off >= len(body) {
			return nil, fmt.Errorf("%w: vocabulary ends early", ErrFile)
		}
		n := int(body[off])
		if n == 0 || off+1+n > len(body) {
			return nil, fmt.Errorf("%w: word %d is cut off", ErrFile, i)
		}
		v.Words[i] = string(body[off+1 : off+1+n])
		off += 1 + n
	}
	if len(body)-off != count*(4+v.Dim) {
		return nil, fmt.Errorf("%w: %d vector bytes, want %d", ErrFile, len(body)-off, count*(4+v.Dim))
	}
	v.Vecs = make([]float32, count*v.Dim)
	for i := 0; i < count; i++ {
		scale := math.Float32frombits(binary.LittleEndian.Uint32(body[off:]))
		off += 4
		if !(scale >= 0) || math.IsInf(float64(scale), 0) {
			return nil, fmt.Errorf("%w: word %d has scale %v", ErrFile, i, scale)
		}
		for j := 0; j < v.Dim; j++ {
			v.Vecs[i*v.Dim+j] = scale * float32(int8(body[off+j]))
		}
		off += v.Dim
	}
	if v.VocabSize < count {
		return nil, fmt.Errorf("%w: vocabulary size %d below %d words", ErrFile, v.VocabSize, count)
	}
	return v, nil
}
