package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// fieldError is a body that does not fit the expected shape; it names the
// field and unwraps to errBadJSON.
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.msg }

// Public returns the message shown to the caller.
func (e *fieldError) Public() string { return e.msg }

func (e *fieldError) Unwrap() error { return errBadJSON }

// decode reads a JSON object body into v: size-limited, Content-Type
// checked, unknown fields refused. An empty body decodes as {} when
// allowEmpty.
func (a *API) decode(c *fiber.Ctx, v any, allowEmpty bool) error {
	body := c.Body()
	if len(body) > a.d.MaxBodyBytes {
		return errBodyTooLarge
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return &fieldError{msg: "request body is empty; send a JSON object"}
	}
	if mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType)); err != nil || mt != fiber.MIMEApplicationJSON {
		return errMediaType
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &fieldError{msg: "unexpected data after the JSON object"}
	}
	return nil
}

// jsonError turns a decoder error into a message naming the field.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return &fieldError{msg: "body must be a JSON object"}
		}
		return &fieldError{field: field, msg: fmt.Sprintf("%s must be a %s", field, jsonKind(te.Type.Kind().String()))}
	case errors.As(err, &se):
		return &fieldError{msg: fmt.Sprintf("malformed JSON at byte %d", se.Offset)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &fieldError{field: field, msg: "unknown field " + field}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &fieldError{msg: "truncated JSON body"}
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe
	}
	return &fieldError{msg: "malformed JSON body"}
}

func jsonKind(k string) string {
	switch k {
	case "int", "int64", "int32", "float64":
		return "number"
	case "slice":
		return "list"
	case "struct", "map":
		return "object"
	}
	return k
}

// optional records whether a JSON field was present, and its value (nil
// for an explicit null), for PATCH bodies.
type optional[T any] struct {
	Set   bool
	Value *T
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	o.Value = &v
	return nil
}
