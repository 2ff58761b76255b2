package web

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
)

// statementKinds is the order totals are shown in.
var statementKinds = []credits.Kind{credits.KindTopUp, credits.KindGrant, credits.KindDebit, credits.KindRefund, credits.KindAdjustment}

// usd formats micro-dollars as dollars with six decimals (exact).
func usd(micros int64) string {
	sign := ""
	if micros < 0 {
		sign, micros = "-", -micros
	}
	return fmt.Sprintf("%s%d.%06d", sign, micros/1_000_000, micros%1_000_000)
}

// statementJSON is a statement's JSON form.
type statementJSON struct {
	OrgID         string              `json:"org_id"`
	Organisation  string              `json:"organisation"`
	From          time.Time           `json:"from"`
	To            time.Time           `json:"to"`
	OpeningMicros int64               `json:"opening_balance_micros"`
	ClosingMicros int64               `json:"closing_balance_micros"`
	Totals        map[string]int64    `json:"totals_micros"`
	Lines         []statementLineJSON `json:"lines"`
}

type statementLineJSON struct {
	Date         time.Time `json:"date"`
	Kind         string    `json:"kind"`
	Description  string    `json:"description"`
	Requests     int       `json:"requests,omitempty"`
	AmountMicros int64     `json:"amount_micros"`
}

// sendStatement writes st as format (json, csv or pdf) as a download.
func sendStatement(c *fiber.Ctx, st *credits.Statement, orgName, format string) error {
	name := fmt.Sprintf("heddle-statement-%s.%s", st.From.Format("2006-01"), format)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	switch format {
	case "csv":
		c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
		return c.Send(statementCSV(st))
	case "pdf":
		body, err := statementPDF(st, orgName)
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, "application/pdf")
		return c.Send(body)
	}
	v := statementJSON{OrgID: st.OrgID, Organisation: orgName, From: st.From, To: st.To, OpeningMicros: st.Opening,
		ClosingMicros: st.Closing, Totals: map[string]int64{}, Lines: make([]statementLineJSON, len(st.Lines))}
	for _, k := range statementKinds {
		v.Totals[string(k)] = st.Totals[k]
	}
	for i, l := range st.Lines {
		v.Lines[i] = statementLineJSON{Date: l.Date, Kind: string(l.Kind), Description: l.Description, Requests: l.Requests, AmountMicros: l.AmountMicros}
	}
	return c.JSON(v)
}

// statementCSV is one row per line between an opening and a closing row,
// then one row per total; amounts in dollars and micro-dollars.
func statementCSV(st *credits.Statement) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"date", "kind", "description", "requests", "amount_usd", "amount_micros"})
	_ = w.Write([]string{st.From.Format(time.DateOnly), "opening_balance", "Opening balance", "", usd(st.Opening), strconv.FormatInt(st.Opening, 10)})
	for _, l := range st.Lines {
		req := ""
		if l.Requests > 0 {
			req = strconv.Itoa(l.Requests)
		}
		_ = w.Write([]string{l.Date.UTC().Format(time.DateOnly), string(l.Kind), l.Description, req, usd(l.AmountMicros), strconv.FormatInt(l.AmountMicros, 10)})
	}
	last := st.To.Add(-time.Second).Format(time.DateOnly)
	for _, k := range statementKinds {
		_ = w.Write([]string{last, "total_" + string(k), "Total " + string(k), "", usd(st.Totals[k]), strconv.FormatInt(st.Totals[k], 10)})
	}
	_ = w.Write([]string{last, "closing_balance", "Closing balance", "", usd(st.Closing), strconv.FormatInt(st.Closing, 10)})
	w.Flush()
	return b.Bytes()
}

// statementPDF lays the statement out on A4 pages: a header, the opening
// balance, a table of lines (repeated header on each page), the totals
// and the closing balance.
func statementPDF(st *credits.Statement, orgName string) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetTitle("Heddle statement "+st.From.Format("January 2006"), true)
	pdf.SetAuthor("Heddle", true)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	cols := []float64{28, 24, 86, 18, 34}
	header := func() {
		pdf.SetFont("Helvetica", "B", 9)
		pdf.SetFillColor(230, 230, 230)
		for i, h := range []string{"Date", "Kind", "Description", "Requests", "Amount (USD)"} {
			align := "L"
			if i >= 3 {
				align = "R"
			}
			pdf.CellFormat(cols[i], 7, h, "1", 0, align, true, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 9)
	}
	pdf.SetHeaderFunc(func() {
		if pdf.PageNo() > 1 {
			header()
		}
	})
	pdf.SetFooterFunc(func() {
		pdf.SetY(-15)
		pdf.SetFont("Helvetica", "", 8)
		pdf.CellFormat(0, 10, fmt.Sprintf("Page %d/{nb}", pdf.PageNo()), "", 0, "C", false, 0, "")
	})
	pdf.AliasNbPages("")
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(0, 10, "Statement of prepaid credit", "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 6, tr("Organisation: "+orgName+" ("+st.OrgID+")"), "", 1, "L", false, 0, "")
	pdf.CellFormat(0, 6, fmt.Sprintf("Period: %s to %s (UTC)", st.From.Format(time.DateOnly), st.To.Add(-time.Second).Format(time.DateOnly)), "", 1, "L", false, 0, "")
	pdf.CellFormat(0, 6, "Amounts in US dollars; the ledger keeps integer micro-dollars.", "", 1, "L", false, 0, "")
	pdf.Ln(4)
	pdf.SetFont("Helvetica", "B", 11)
	pdf.CellFormat(0, 7, "Opening balance: $"+usd(st.Opening), "", 1, "L", false, 0, "")
	pdf.Ln(2)
	header()
	for _, l := range st.Lines {
		req := ""
		if l.Requests > 0 {
			req = strconv.Itoa(l.Requests)
		}
		desc := tr(l.Description)
		if len(desc) > 60 {
			desc = desc[:57] + "..."
		}
		pdf.CellFormat(cols[0], 6, l.Date.UTC().Format(time.DateOnly), "1", 0, "L", false, 0, "")
		pdf.CellFormat(cols[1], 6, string(l.Kind), "1", 0, "L", false, 0, "")
		pdf.CellFormat(cols[2], 6, desc, "1", 0, "L", false, 0, "")
		pdf.CellFormat(cols[3], 6, req, "1", 0, "R", false, 0, "")
		pdf.CellFormat(cols[4], 6, usd(l.AmountMicros), "1", 1, "R", false, 0, "")
	}
	if len(st.Lines) == 0 {
		pdf.CellFormat(cols[0]+cols[1]+cols[2]+cols[3]+cols[4], 6, "No entries in this period.", "1", 1, "L", false, 0, "")
	}
	pdf.Ln(4)
	pdf.SetFont("Helvetica", "B", 10)
	pdf.CellFormat(0, 7, "Totals", "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	for _, k := range statementKinds {
		pdf.CellFormat(60, 6, "Total "+string(k), "B", 0, "L", false, 0, "")
		pdf.CellFormat(40, 6, usd(st.Totals[k]), "B", 1, "R", false, 0, "")
	}
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "B", 11)
	pdf.CellFormat(0, 7, "Closing balance: $"+usd(st.Closing), "", 1, "L", false, 0, "")
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		return nil, fmt.Errorf("web: statement pdf: %w", err)
	}
	return b.Bytes(), nil
}
