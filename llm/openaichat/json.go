package openaichat

import "github.com/heddle-gw/heddle/llm"

func badRequest(field, reason string) *llm.BadRequestError {
	return &llm.BadRequestError{Field: field, Reason: reason}
}
