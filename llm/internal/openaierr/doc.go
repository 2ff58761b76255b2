// Package openaierr is the one table of OpenAI's error types and codes and
// the {"error":{message,type,param,code}} body OpenAI's API sends, shared by
// the Chat Completions (llm/openaichat) and Responses (llm/responses) codecs
// so that the two OpenAI surfaces cannot answer one error differently.
//
// The values are those the official API sends: a 429 for a rate limit has
// the limit's unit as its type ("requests") and code rate_limit_exceeded; a
// spent quota has type and code insufficient_quota; an unknown key is an
// invalid_request_error with code invalid_api_key; an overloaded server is a
// server_error with code server_is_overloaded.
//
// Ring: kernel. It performs no I/O; of Heddle's packages it imports only
// llm/internal/wirejson (for marshalling). It is internal to llm: the two
// OpenAI codecs are its only callers.
package openaierr
