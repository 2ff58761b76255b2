package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/analytics"
)

var _ analytics.ContentStore = (*Store)(nil)

// privacyRow is one row of org_privacy.
type privacyRow struct {
	OrgID         string    `gorm:"column:org_id;primaryKey"`
	StoreContent  bool      `gorm:"column:store_content"`
	RetentionDays int       `gorm:"column:retention_days"`
	UpdatedAt     time.Time `gorm:"column:updated_at"`
}

// TableName names the table for gorm.
func (privacyRow) TableName() string { return "org_privacy" }

// contentRow is one row of request_content.
type contentRow struct {
	OrgID             string    `gorm:"column:org_id;primaryKey"`
	RequestID         string    `gorm:"column:request_id;primaryKey"`
	KeyID             string    `gorm:"column:key_id"`
	CreatedAt         time.Time `gorm:"column:created_at"`
	ExpiresAt         time.Time `gorm:"column:expires_at"`
	ExpiresMs         int64     `gorm:"column:expires_ms"`
	DEKVersion        int64     `gorm:"column:dek_version"`
	RequestSealed     []byte    `gorm:"column:request_sealed"`
	ResponseSealed    []byte    `gorm:"column:response_sealed"`
	RequestTruncated  bool      `gorm:"column:request_truncated"`
	ResponseTruncated bool      `gorm:"column:response_truncated"`
}

// TableName names the table for gorm.
func (contentRow) TableName() string { return "request_content" }

// GetPrivacy implements analytics.ContentStore.
func (s *Store) GetPrivacy(ctx context.Context, orgID string) (analytics.PrivacySettings, error) {
	var r privacyRow
	err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return analytics.DefaultPrivacy, nil
	}
	if err != nil {
		return analytics.PrivacySettings{}, fmt.Errorf("sqlstore: get privacy of %s: %w", orgID, err)
	}
	return analytics.PrivacySettings{StoreContent: r.StoreContent, RetentionDays: r.RetentionDays, UpdatedAt: r.UpdatedAt.UTC()}, nil
}

// PutPrivacy implements analytics.ContentStore with one upsert; a zero
// UpdatedAt becomes now.
func (s *Store) PutPrivacy(ctx context.Context, orgID string, v analytics.PrivacySettings) error {
	if orgID == "" {
		return fmt.Errorf("sqlstore: put privacy: %w", analytics.ErrOrgRequired)
	}
	r := privacyRow{OrgID: orgID, StoreContent: v.StoreContent, RetentionDays: v.RetentionDays, UpdatedAt: v.UpdatedAt.UTC()}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = time.Now().UTC()
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"store_content", "retention_days", "updated_at"}),
	}).Create(&r).Error
	if err != nil {
		return fmt.Errorf("sqlstore: put privacy of %s: %w", orgID, err)
	}
	return nil
}

// InsertContent implements analytics.ContentStore.
func (s *Store) InsertContent(ctx context.Context, c analytics.SealedContent) error {
	if c.OrgID == "" || c.RequestID == "" {
		return fmt.Errorf("sqlstore: insert content: org and request id are required: %w", analytics.ErrRejected)
	}
	r := contentRow{OrgID: c.OrgID, RequestID: c.RequestID, KeyID: c.KeyID, CreatedAt: c.CreatedAt.UTC(),
		ExpiresAt: c.ExpiresAt.UTC(), ExpiresMs: c.ExpiresAt.UnixMilli(), DEKVersion: c.DEKVersion,
		RequestSealed: c.Request, ResponseSealed: c.Response,
		RequestTruncated: c.RequestTruncated, ResponseTruncated: c.ResponseTruncated}
	if err := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&r).Error; err != nil {
		return fmt.Errorf("sqlstore: insert content of %s: %w", c.RequestID, err)
	}
	return nil
}

// Content implements analytics.ContentStore.
func (s *Store) Content(ctx context.Context, orgID, requestID string, now time.Time) (analytics.SealedContent, error) {
	if orgID == "" {
		return analytics.SealedContent{}, analytics.ErrOrgRequired
	}
	var r contentRow
	err := s.db.WithContext(ctx).Where("org_id = ? AND request_id = ? AND expires_ms > ?", orgID, requestID, now.UnixMilli()).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return analytics.SealedContent{}, fmt.Errorf("sqlstore: content of %s: %w", requestID, analytics.ErrNotFound)
	}
	if err != nil {
		return analytics.SealedContent{}, fmt.Errorf("sqlstore: content of %s: %w", requestID, err)
	}
	return analytics.SealedContent{OrgID: r.OrgID, RequestID: r.RequestID, KeyID: r.KeyID,
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), DEKVersion: r.DEKVersion,
		Request: r.RequestSealed, Response: r.ResponseSealed,
		RequestTruncated: r.RequestTruncated, ResponseTruncated: r.ResponseTruncated}, nil
}

// DeleteContent implements analytics.ContentStore.
func (s *Store) DeleteContent(ctx context.Context, orgID string) (int64, error) {
	if orgID == "" {
		return 0, analytics.ErrOrgRequired
	}
	res := s.db.WithContext(ctx).Where("org_id = ?", orgID).Delete(&contentRow{})
	if res.Error != nil {
		return 0, fmt.Errorf("sqlstore: delete content of %s: %w", orgID, res.Error)
	}
	return res.RowsAffected, nil
}

// DeleteExpiredContent implements analytics.ContentStore.
func (s *Store) DeleteExpiredContent(ctx context.Context, now time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("expires_ms <= ?", now.UnixMilli()).Delete(&contentRow{})
	if res.Error != nil {
		return 0, fmt.Errorf("sqlstore: delete expired content: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// ShortenContent implements analytics.ContentStore: rows of orgID whose
// expiry lies past their creation plus retention get that earlier expiry
// (read in pages of 500 by request id; a rare admin action).
func (s *Store) ShortenContent(ctx context.Context, orgID string, retention time.Duration) (int64, error) {
	if orgID == "" {
		return 0, analytics.ErrOrgRequired
	}
	type stamp struct {
		RequestID string    `gorm:"column:request_id"`
		CreatedAt time.Time `gorm:"column:created_at"`
		ExpiresMs int64     `gorm:"column:expires_ms"`
	}
	var changed int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		after := "" // keyset paging by request id within the org
		for {
			var rows []stamp
			err := tx.Model(&contentRow{}).Select("request_id", "created_at", "expires_ms").
				Where("org_id = ? AND request_id > ?", orgID, after).Order("request_id").Limit(500).Find(&rows).Error
			if err != nil || len(rows) == 0 {
				return err
			}
			for _, r := range rows {
				exp := r.CreatedAt.UTC().Add(retention)
				if exp.UnixMilli() >= r.ExpiresMs {
					continue
				}
				err := tx.Model(&contentRow{}).Where("org_id = ? AND request_id = ?", orgID, r.RequestID).
					Updates(map[string]any{"expires_at": exp, "expires_ms": exp.UnixMilli()}).Error
				if err != nil {
					return err
				}
				changed++
			}
			after = rows[len(rows)-1].RequestID
		}
	})
	if err != nil {
		return 0, fmt.Errorf("sqlstore: shorten content of %s: %w", orgID, err)
	}
	return changed, nil
}
