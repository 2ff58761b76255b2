package app

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestServerConfigClientAddress: behind a trusted proxy the client address
// comes from its header (so one proxy address does not throttle every
// user); a header from anyone else, or with no proxy configured, is ignored.
func TestServerConfigClientAddress(t *testing.T) {
	ip := func(cfg Config, header string) string {
		app := fiber.New(serverConfig(cfg, nil))
		app.Get("/", func(c *fiber.Ctx) error { return c.SendString(c.IP()) })
		req := httptest.NewRequest("GET", "/", nil)
		if header != "" {
			req.Header.Set("X-Real-IP", header)
		}
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	// app.Test's connection comes from 0.0.0.0.
	trusted := Config{TrustedProxies: []string{"0.0.0.0/32"}, ProxyHeader: "X-Real-IP"}
	if got := ip(trusted, "203.0.113.7"); got != "203.0.113.7" {
		t.Errorf("behind the trusted proxy: client %q, want the header's 203.0.113.7", got)
	}
	other := Config{TrustedProxies: []string{"10.9.9.9"}, ProxyHeader: "X-Real-IP"}
	if got := ip(other, "203.0.113.7"); got != "0.0.0.0" {
		t.Errorf("from an untrusted peer: client %q, want the connection's 0.0.0.0", got)
	}
	if got := ip(Config{}, "203.0.113.7"); got != "0.0.0.0" {
		t.Errorf("no proxies configured: client %q, want the connection's 0.0.0.0", got)
	}
}

func TestTrustedProxiesValidated(t *testing.T) {
	env := map[string]string{"HEDDLE_TRUSTED_PROXIES": "10.0.0.0/8, not-an-ip"}
	_, err := LoadConfig(func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("a bad HEDDLE_TRUSTED_PROXIES entry was accepted")
	}
	env["HEDDLE_TRUSTED_PROXIES"] = "10.0.0.0/8, 172.16.0.0/12,192.168.1.10"
	cfg, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil || len(cfg.TrustedProxies) != 3 || cfg.ProxyHeader != "X-Real-IP" {
		t.Fatalf("cfg %+v err %v", cfg.TrustedProxies, err)
	}
}
