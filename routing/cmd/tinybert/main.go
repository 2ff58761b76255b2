// Command tinybert writes the tiny BERT-shaped test model of
// routing/hugotembed/tinybert into a directory:
//
//	go run ./routing/cmd/tinybert DIR
//
// The files are the same on every run (fixed seed), so the model is
// reproducible from the repository and never committed.
package main

import (
	"fmt"
	"os"

	"github.com/heddle-gw/heddle/routing/hugotembed/tinybert"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tinybert DIR")
		os.Exit(2)
	}
	if err := tinybert.Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (dim %d, vocabulary %d)\n", os.Args[1], tinybert.Dim, len(tinybert.Vocab()))
}
