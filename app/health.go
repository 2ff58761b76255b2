package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthTimeout bounds the health command.
const healthTimeout = 3 * time.Second

// healthCommand asks a running server's /readyz and fails unless it answers
// 200 (ok or degraded): the container healthcheck, since the image has no
// shell or curl. The URL defaults to the local HEDDLE_ADDR.
func healthCommand(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	url := ""
	switch len(args) {
	case 0:
		addr := getenv("HEDDLE_ADDR")
		if addr == "" {
			addr = ":8080"
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return fmt.Errorf("health: HEDDLE_ADDR %q: %w", addr, err)
		}
		url = "http://127.0.0.1:" + port + "/readyz"
	case 1:
		url = args[0]
	default:
		return fmt.Errorf("usage: heddle health [URL]")
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	fmt.Fprintln(stdout, strings.TrimSpace(string(body)))
	return nil
}
