package wirejson

import "testing"

// TestMarshal checks that <, > and & stay as they are and that no newline
// trails, unlike json.Marshal and json.Encoder respectively.
func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"html characters", map[string]string{"t": "<a> & b"}, `{"t":"<a> & b"}`},
		{"quotes and controls still escaped", "x\"y\\z\n", `"x\"y\\z\n"`},
		{"line separators still escaped", "a\u2028b", `"a\u2028b"`},
		{"struct order kept", struct {
			B int `json:"b"`
			A int `json:"a,omitempty"`
		}{B: 1}, `{"b":1}`},
		{"nil", nil, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.v)
			if err != nil || string(got) != tt.want {
				t.Errorf("Marshal = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal(func) succeeded")
	}
}
