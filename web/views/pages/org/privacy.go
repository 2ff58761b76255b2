package org

// Privacy is the organisation's content-storage section: the stored
// settings, and the form's values (as typed, after a refused submission).
type Privacy struct {
	CSRF          string
	StoreContent  bool
	RetentionDays string
	FormStore     bool
	FormDays      string
	Updated       string
	CanManage     bool
	Saved         string
	Error         string
	Fields        map[string]string
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
