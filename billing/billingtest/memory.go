package billingtest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/billing"
)

// Memory is an in-memory billing.SpendStore and billing.OrgBudgetStore.
// Fail, when set, makes every call return it (a store that is down). Safe
// for concurrent use.
type Memory struct {
	mu     sync.Mutex
	spend  map[string]int64
	orgs   map[string]billing.OrgBudgetSettings
	fail   error
	getErr error
	now    func() time.Time
}

var (
	_ billing.SpendStore     = (*Memory)(nil)
	_ billing.OrgBudgetStore = (*Memory)(nil)
)

// NewMemory returns an empty store; now stamps settings stored without
// UpdatedAt (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{spend: map[string]int64{}, orgs: map[string]billing.OrgBudgetSettings{}, now: now}
}

// Fail makes every later call return err (nil heals the store).
func (m *Memory) Fail(err error) {
	m.mu.Lock()
	m.fail = err
	m.mu.Unlock()
}

// FailSettingsReads makes only GetOrgBudgets return err (nil heals it).
func (m *Memory) FailSettingsReads(err error) {
	m.mu.Lock()
	m.getErr = err
	m.mu.Unlock()
}

func spendKey(scope string, start time.Time) string { return fmt.Sprint(scope, "@", start.UnixMilli()) }

// Spent implements billing.SpendStore.
func (m *Memory) Spent(_ context.Context, scope string, periodStart time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	return m.spend[spendKey(scope, periodStart)], nil
}

// Add implements billing.SpendStore.
func (m *Memory) Add(_ context.Context, scope string, periodStart time.Time, micros int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.spend[spendKey(scope, periodStart)] += micros
	return nil
}

// GetOrgBudgets implements billing.OrgBudgetStore.
func (m *Memory) GetOrgBudgets(_ context.Context, orgID string) (billing.OrgBudgetSettings, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return billing.OrgBudgetSettings{}, m.fail
	}
	if m.getErr != nil {
		return billing.OrgBudgetSettings{}, m.getErr
	}
	s, ok := m.orgs[orgID]
	if !ok {
		return billing.NoOrgBudgets, nil
	}
	return s, nil
}

// PutOrgBudgets implements billing.OrgBudgetStore.
func (m *Memory) PutOrgBudgets(_ context.Context, orgID string, s billing.OrgBudgetSettings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if orgID == "" {
		return fmt.Errorf("billingtest: put budgets: empty organisation id")
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = m.now()
	}
	s.UpdatedAt = s.UpdatedAt.UTC()
	m.orgs[orgID] = s
	return nil
}
