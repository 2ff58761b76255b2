package cacheredis

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

const neighborVersion = 1

var errNeighbor = errors.New("cacheredis: malformed neighbor")

// encodeNeighbor writes a neighbor as: version byte, uvarint-prefixed key and
// numbers, expiry as int64 Unix milliseconds, then the vector as
// little-endian float32s.
func encodeNeighbor(n routing.Neighbor) []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(n.Key)+len(n.Numbers)+8+4*len(n.Vector))
	b = append(b, neighborVersion)
	b = binary.AppendUvarint(b, uint64(len(n.Key)))
	b = append(b, n.Key...)
	b = binary.AppendUvarint(b, uint64(len(n.Numbers)))
	b = append(b, n.Numbers...)
	b = binary.LittleEndian.AppendUint64(b, uint64(n.Expires.UnixMilli()))
	for _, x := range n.Vector {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func decodeNeighbor(b []byte) (routing.Neighbor, error) {
	if len(b) < 1 || b[0] != neighborVersion {
		return routing.Neighbor{}, errNeighbor
	}
	b = b[1:]
	key, b, ok := readString(b)
	if !ok {
		return routing.Neighbor{}, errNeighbor
	}
	nums, b, ok := readString(b)
	if !ok || len(b) < 8 || (len(b)-8)%4 != 0 {
		return routing.Neighbor{}, errNeighbor
	}
	n := routing.Neighbor{Key: key, Numbers: nums,
		Expires: time.UnixMilli(int64(binary.LittleEndian.Uint64(b))).UTC()}
	b = b[8:]
	n.Vector = make([]float32, len(b)/4)
	for i := range n.Vector {
		n.Vector[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return n, nil
}

func readString(b []byte) (string, []byte, bool) {
	l, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < l {
		return "", nil, false
	}
	return string(b[k : k+int(l)]), b[k+int(l):], true
}
