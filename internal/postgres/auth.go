package postgres

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.AuthStore = (*DB)(nil)

// CreateCompany implements showroom.AuthStore.
func (db *DB) CreateCompany(ctx context.Context, name string) (*showroom.Company, error) {
	c := &showroom.Company{Name: name, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	err := db.pool.QueryRow(ctx, `INSERT INTO companies (name, created_at) VALUES ($1, $2) RETURNING id`, name, c.CreatedAt).Scan(&c.ID)
	if isUnique(err) {
		return nil, showroom.Errorf(showroom.EConflict, "company %q exists", name)
	} else if err != nil {
		return nil, err
	}
	return c, nil
}

// FindCompany implements showroom.AuthStore. Every authenticated request
// looks its company up by name, and a company is never renamed or deleted
// (nothing here or in a migration does either), so one found is
// remembered for the life of the DB. Deleting or renaming companies would
// have to end this, in every process that uses the database.
func (db *DB) FindCompany(ctx context.Context, name string) (*showroom.Company, error) {
	if c, ok := db.companies.Load(name); ok {
		cp := *c.(*showroom.Company)
		return &cp, nil
	}
	c := &showroom.Company{Name: name}
	err := db.pool.QueryRow(ctx, `SELECT id, created_at FROM companies WHERE name = $1`, name).Scan(&c.ID, &c.CreatedAt)
	if err != nil {
		return nil, notFound(err, showroom.ENotFound, "company %q not found", name)
	}
	c.CreatedAt = c.CreatedAt.UTC()
	cp := *c
	db.companies.Store(name, &cp)
	return c, nil
}

// CreateUser implements showroom.AuthStore.
func (db *DB) CreateUser(ctx context.Context, u *showroom.User) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	systems := u.Systems
	if systems == nil {
		systems = []string{}
	}
	err := db.pool.QueryRow(ctx, `INSERT INTO users (username, password_hash, company_id, systems, created_at, updated_at, tokens_not_before)
		VALUES ($1, $2, $3, $4, $5, $5, $5) RETURNING id`, u.Username, u.PasswordHash, u.CompanyID, systems, now).Scan(&u.ID)
	if isUnique(err) {
		return showroom.Errorf(showroom.EConflict, "user %q exists", u.Username)
	} else if err != nil {
		return err
	}
	u.CreatedAt, u.UpdatedAt, u.TokensNotBefore = now, now, now
	return nil
}

// FindUser implements showroom.AuthStore.
func (db *DB) FindUser(ctx context.Context, username string) (*showroom.User, error) {
	u := &showroom.User{}
	var notBefore *time.Time
	err := db.pool.QueryRow(ctx, `SELECT u.id, u.username, u.password_hash, u.company_id, c.name, u.systems, u.created_at, u.updated_at, u.tokens_not_before
		FROM users u JOIN companies c ON c.id = u.company_id WHERE u.username = $1`, username).
		Scan(&u.ID, &u.Username, &u.PasswordHash, &u.CompanyID, &u.Company, &u.Systems, &u.CreatedAt, &u.UpdatedAt, &notBefore)
	if err != nil {
		return nil, notFound(err, showroom.ENotFound, "user %q not found", username)
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	if notBefore != nil {
		u.TokensNotBefore = notBefore.UTC()
	}
	return u, nil
}

// CountUsers implements showroom.AuthStore.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n)
	return n, err
}

// SetPassword implements showroom.AuthStore.
func (db *DB) SetPassword(ctx context.Context, username, hash string, now time.Time) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `UPDATE users SET password_hash = $1, updated_at = $2, tokens_not_before = $2 WHERE username = $3 RETURNING id`,
			hash, now, username).Scan(&id)
		if err != nil {
			return notFound(err, showroom.ENotFound, "user %q not found", username)
		}
		_, err = tx.Exec(ctx, `UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL`, now, id)
		return err
	})
}

// DeleteUser implements showroom.AuthStore. The user's refresh tokens go
// with it (ON DELETE CASCADE).
func (db *DB) DeleteUser(ctx context.Context, username string) error {
	tag, err := db.pool.Exec(ctx, `DELETE FROM users WHERE username = $1`, username)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return showroom.Errorf(showroom.ENotFound, "user %q not found", username)
	}
	return nil
}

// SigningKeys implements showroom.AuthStore.
func (db *DB) SigningKeys(ctx context.Context) ([]*showroom.SigningKey, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, private_key, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []*showroom.SigningKey
	for rows.Next() {
		var k showroom.SigningKey
		var seed []byte
		var retired *time.Time
		if err := rows.Scan(&k.ID, &seed, &k.CreatedAt, &retired); err != nil {
			return nil, err
		}
		if len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("signing key %s: bad seed length %d", k.ID, len(seed))
		}
		k.PrivateKey = ed25519.NewKeyFromSeed(seed)
		k.CreatedAt, k.RetiredAt = k.CreatedAt.UTC(), fromNull(retired)
		keys = append(keys, &k)
	}
	return keys, rows.Err()
}

// AddSigningKey implements showroom.AuthStore.
func (db *DB) AddSigningKey(ctx context.Context, k *showroom.SigningKey) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL`, k.CreatedAt); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO signing_keys (id, private_key, created_at) VALUES ($1, $2, $3)`,
			k.ID, k.PrivateKey.Seed(), k.CreatedAt)
		if isUnique(err) {
			return showroom.Errorf(showroom.EConflict, "signing key %q exists", k.ID)
		}
		return err
	})
}

// DeleteSigningKeysRetiredBefore implements showroom.AuthStore.
func (db *DB) DeleteSigningKeysRetiredBefore(ctx context.Context, t time.Time) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM signing_keys WHERE retired_at < $1`, t)
	return err
}

// CreateRefreshToken implements showroom.AuthStore.
func (db *DB) CreateRefreshToken(ctx context.Context, t *showroom.RefreshToken) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO refresh_tokens (id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		t.ID, t.UserID, t.CreatedAt, t.ExpiresAt)
	if isUnique(err) {
		return showroom.Errorf(showroom.EConflict, "refresh token exists")
	}
	return err
}

// FindRefreshToken implements showroom.AuthStore.
func (db *DB) FindRefreshToken(ctx context.Context, id string) (*showroom.RefreshToken, error) {
	t := &showroom.RefreshToken{ID: id}
	var revoked *time.Time
	err := db.pool.QueryRow(ctx, `SELECT user_id, created_at, expires_at, revoked_at FROM refresh_tokens WHERE id = $1`, id).
		Scan(&t.UserID, &t.CreatedAt, &t.ExpiresAt, &revoked)
	if err != nil {
		return nil, notFound(err, showroom.ENotFound, "refresh token not found")
	}
	t.CreatedAt, t.ExpiresAt, t.RevokedAt = t.CreatedAt.UTC(), t.ExpiresAt.UTC(), fromNull(revoked)
	return t, nil
}

// RevokeRefreshToken implements showroom.AuthStore.
func (db *DB) RevokeRefreshToken(ctx context.Context, id string, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE refresh_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, at, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		if _, err := db.FindRefreshToken(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteRefreshTokensExpiredBefore implements showroom.AuthStore.
func (db *DB) DeleteRefreshTokensExpiredBefore(ctx context.Context, t time.Time) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM refresh_tokens WHERE expires_at < $1`, t)
	return err
}
