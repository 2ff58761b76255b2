package routingtest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// OrgEvalJSONL generates n evaluation samples for three models: on coding
// prompts only "strong" succeeds, on small talk all three do; "cheap" costs
// a hundredth of "strong".
func OrgEvalJSONL(n int) []byte {
	coding := []string{"refactor the Go http handler", "fix the segfault in the C parser", "write a SQL migration adding an index",
		"debug the failing Rust borrow checker error", "implement a binary search tree in Java"}
	chat := []string{"say hello to my grandmother", "what a lovely sunny morning", "thank you so much for the flowers",
		"tell me a short joke about cats", "wish my friend a happy birthday"}
	var buf bytes.Buffer
	for i := range n {
		line := map[string]any{"id": fmt.Sprint(i)}
		if i%2 == 0 {
			line["prompt"] = fmt.Sprintf("%s, variant %d", coding[i/2%len(coding)], i)
			line["task"] = "coding"
			line["scores"] = map[string]float64{"cheap": 0, "mid": float64(i / 2 % 2), "strong": 1}
		} else {
			line["prompt"] = fmt.Sprintf("%s, please %d", chat[i/2%len(chat)], i)
			line["task"] = "chat"
			line["scores"] = map[string]float64{"cheap": 1, "mid": 1, "strong": 1}
		}
		line["costs"] = map[string]float64{"cheap": 0.0001, "mid": 0.001, "strong": 0.01}
		b, _ := json.Marshal(line)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
