// Package tinybert writes a tiny, BERT-shaped sentence-embedding model
// directory (model.onnx, tokenizer.json, vocab.txt, config.json,
// special_tokens_map.json) so hugot can be tested without downloading weights.
// The model has BERT's inputs (input_ids, attention_mask, token_type_ids) and
// output (last_hidden_state [batch, sequence, Dim]): word and token-type
// embeddings, one dense layer with tanh, masked by the attention mask. Its
// weights come from a fixed seed, so every run writes identical files.
//
// Ring: test support for the routing/hugotembed adapter. It writes files into
// the directory it is given and does nothing else.
package tinybert

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Dim is the embedding dimension of the tiny model.
const Dim = 32

// MaxPositions is the longest sequence the tokenizer passes to the model.
const MaxPositions = 128

const words = `the a an and or but if then else of to in on at for with by from as is are was were be been
it this that these those i you he she we they me my your our their what which who how why when where
can could should would will do does did not no yes all any some more most less many much one two three
code function bug error test fix file data model query user time day write read make find use work
python go java rust sql http server client api list map string int number value return loop class type
math solve prove equation sum product integral derivative probability matrix vector graph tree node
translate french german spanish english chinese summary summarise extract json table name date email
story poem letter essay blog write hello thanks please help good bad best new old big small fast slow`

var punct = []string{".", ",", "!", "?", ";", ":", "'", "\"", "(", ")", "[", "]", "{", "}", "-", "_", "/", "\\", "=", "+", "*", "<", ">", "#", "@", "&", "%", "$"}

// Vocab returns the WordPiece vocabulary in id order.
func Vocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	seen := map[string]bool{}
	for _, w := range strings.Fields(words) {
		if !seen[w] {
			seen[w] = true
			v = append(v, w)
		}
	}
	var singles []string
	for c := 'a'; c <= 'z'; c++ {
		singles = append(singles, string(c))
	}
	for c := '0'; c <= '9'; c++ {
		singles = append(singles, string(c))
	}
	for _, s := range singles {
		if !seen[s] {
			seen[s] = true
			v = append(v, s)
		}
	}
	v = append(v, punct...)
	for _, s := range singles {
		v = append(v, "##"+s)
	}
	return v
}

// Write writes the model directory into dir (created if needed).
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tinybert: %w", err)
	}
	vocab := Vocab()
	tok, err := tokenizerJSON(vocab)
	if err != nil {
		return err
	}
	config, _ := json.MarshalIndent(map[string]any{
		"model_type": "bert", "architectures": []string{"BertModel"}, "hidden_size": Dim,
		"num_hidden_layers": 1, "max_position_embeddings": MaxPositions, "pad_token_id": 0,
		"vocab_size": len(vocab), "type_vocab_size": 2,
	}, "", "  ")
	special, _ := json.MarshalIndent(map[string]string{
		"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]",
	}, "", "  ")
	files := map[string][]byte{
		"model.onnx":              Model(len(vocab)),
		"tokenizer.json":          tok,
		"vocab.txt":               []byte(strings.Join(vocab, "\n") + "\n"),
		"config.json":             config,
		"special_tokens_map.json": special,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("tinybert: %w", err)
		}
	}
	return nil
}

// Model returns the ONNX model bytes for a vocabulary of vocabSize tokens.
func Model(vocabSize int) []byte {
	rng := rand.New(rand.NewPCG(2026, 11))
	randn := func(n int, scale float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64()) * scale
		}
		return out
	}
	v, d := int64(vocabSize), int64(Dim)
	g := msg(nil).
		sub(1, node("Gather", "word_gather", []string{"word_embeddings", "input_ids"}, []string{"word_emb"}, intAttr("axis", 0))).
		sub(1, node("Gather", "type_gather", []string{"token_type_embeddings", "token_type_ids"}, []string{"type_emb"}, intAttr("axis", 0))).
		sub(1, node("Add", "emb_add", []string{"word_emb", "type_emb"}, []string{"emb"})).
		sub(1, node("MatMul", "dense", []string{"emb", "dense_weight"}, []string{"proj"})).
		sub(1, node("Add", "dense_bias_add", []string{"proj", "dense_bias"}, []string{"biased"})).
		sub(1, node("Tanh", "act", []string{"biased"}, []string{"hidden"})).
		sub(1, node("Cast", "mask_cast", []string{"attention_mask"}, []string{"mask_f"}, intAttr("to", elemFloat))).
		sub(1, node("Unsqueeze", "mask_unsqueeze", []string{"mask_f", "unsqueeze_axes"}, []string{"mask_3d"})).
		sub(1, node("Mul", "mask_mul", []string{"hidden", "mask_3d"}, []string{"last_hidden_state"})).
		str(2, "tinybert").
		sub(5, floatTensor("word_embeddings", []int64{v, d}, randn(vocabSize*Dim, 1))).
		sub(5, floatTensor("token_type_embeddings", []int64{2, d}, randn(2*Dim, 0.1))).
		sub(5, floatTensor("dense_weight", []int64{d, d}, randn(Dim*Dim, 0.3))).
		sub(5, floatTensor("dense_bias", []int64{d}, randn(Dim, 0.1))).
		sub(5, int64Tensor("unsqueeze_axes", []int64{1}, []int64{-1})).
		sub(11, valueInfo("input_ids", elemInt64, "batch", "sequence")).
		sub(11, valueInfo("attention_mask", elemInt64, "batch", "sequence")).
		sub(11, valueInfo("token_type_ids", elemInt64, "batch", "sequence")).
		sub(12, valueInfo("last_hidden_state", elemFloat, "batch", "sequence", Dim))
	opsetID := msg(nil).str(1, "").varint(2, opset)
	return msg(nil).varint(1, irVersion).str(2, "heddle-tinybert").sub(7, g).sub(8, opsetID)
}

// tokenizerJSON renders a Hugging Face tokenizer.json for a BERT WordPiece
// tokenizer over vocab.
func tokenizerJSON(vocab []string) ([]byte, error) {
	ids := make(map[string]int, len(vocab))
	for i, t := range vocab {
		ids[t] = i
	}
	var added []map[string]any
	for i, t := range vocab[:5] {
		added = append(added, map[string]any{
			"id": i, "content": t, "single_word": false, "lstrip": false, "rstrip": false,
			"normalized": false, "special": true,
		})
	}
	doc := map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{
			"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": false, "lowercase": true,
		},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", ids["[SEP]"]}, "cls": []any{"[CLS]", ids["[CLS]"]}},
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids,
		},
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("tinybert: %w", err)
	}
	return data, nil
}
