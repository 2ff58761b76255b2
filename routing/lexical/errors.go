package lexical

import "errors"

// ErrParams is wrapped when Params are not usable (dimension, IDF length).
var ErrParams = errors.New("lexical: invalid params")
