package sqlite

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.AuthStore = (*DB)(nil)

// CreateCompany implements showroom.AuthStore.
func (db *DB) CreateCompany(ctx context.Context, name string) (*showroom.Company, error) {
	c := &showroom.Company{Name: name, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	res, err := db.db.ExecContext(ctx, `INSERT INTO companies (name, created_at) VALUES (?, ?)`, name, ms(c.CreatedAt))
	if isUnique(err) {
		return nil, showroom.Errorf(showroom.EConflict, "company %q exists", name)
	} else if err != nil {
		return nil, err
	}
	if c.ID, err = res.LastInsertId(); err != nil {
		return nil, err
	}
	return c, nil
}

// FindCompany implements showroom.AuthStore. Every authenticated request
// looks its company up by name, and a company is never renamed or deleted
// (nothing here or in a migration does either), so one found is
// remembered for the life of the DB. Deleting or renaming companies would
// have to end this, in every process that has the file open.
func (db *DB) FindCompany(ctx context.Context, name string) (*showroom.Company, error) {
	if c, ok := db.companies.Load(name); ok {
		cp := *c.(*showroom.Company)
		return &cp, nil
	}
	c := &showroom.Company{Name: name}
	var created int64
	err := db.queryRow(ctx, `SELECT id, created_at FROM companies WHERE name = ?`, name).Scan(&c.ID, &created)
	if err != nil {
		return nil, notFound(err, showroom.ENotFound, "company %q not found", name)
	}
	c.CreatedAt = fromMS(created)
	cp := *c
	db.companies.Store(name, &cp)
	return c, nil
}

// CreateUser implements showroom.AuthStore.
func (db *DB) CreateUser(ctx context.Context, u *showroom.User) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	res, err := db.db.ExecContext(ctx, `INSERT INTO users (username, password_hash, company_id, systems, created_at, updated_at, tokens_not_before)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, u.Username, u.PasswordHash, u.CompanyID, strings.Join(u.Systems, " "), ms(now), ms(now), ms(now))
	if isUnique(err) {
		return showroom.Errorf(showroom.EConflict, "user %q exists", u.Username)
	} else if err != nil {
		return err
	}
	if u.ID, err = res.LastInsertId(); err != nil {
		return err
	}
	u.CreatedAt, u.UpdatedAt, u.TokensNotBefore = now, now, now
	return nil
}

// FindUser implements showroom.AuthStore.
func (db *DB) FindUser(ctx context.Context, username string) (*showroom.User, error) {
	u := &showroom.User{}
	var systems string
	var created, updated, notBefore int64
	err := db.db.QueryRowContext(ctx, `SELECT u.id, u.username, u.password_hash, u.company_id, c.name, u.systems, u.created_at, u.updated_at, u.tokens_not_before
		FROM users u JOIN companies c ON c.id = u.company_id WHERE u.username = ?`, username).
		Scan(&u.ID, &u.Username, &u.PasswordHash, &u.CompanyID, &u.Company, &systems, &created, &updated, &notBefore)
	if err != nil {
		return nil, notFound(err, showroom.ENotFound, "user %q not found", username)
	}
	u.Systems = strings.Fields(systems)
	u.CreatedAt, u.UpdatedAt, u.TokensNotBefore = fromMS(created), fromMS(updated), fromMS(notBefore)
	return u, nil
}

// CountUsers implements showroom.AuthStore.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n)
	return n, err
}

// SetPassword implements showroom.AuthStore.
func (db *DB) SetPassword(ctx context.Context, username, hash string, now time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `UPDATE users SET password_hash = ?, updated_at = ?, tokens_not_before = ? WHERE username = ? RETURNING id`,
			hash, ms(now), ms(now), username).Scan(&id)
		if err != nil {
			return notFound(err, showroom.ENotFound, "user %q not found", username)
		}
		_, err = tx.ExecContext(ctx, `UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at = 0`, ms(now), id)
		return err
	})
}

// DeleteUser implements showroom.AuthStore. The user's refresh tokens go
// with it (ON DELETE CASCADE).
func (db *DB) DeleteUser(ctx context.Context, username string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM users WHERE username = ?`, username)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return showroom.Errorf(showroom.ENotFound, "user %q not found", username)
	}
	return nil
}

// SigningKeys implements showroom.AuthStore.
func (db *DB) SigningKeys(ctx context.Context) ([]*showroom.SigningKey, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, private_key, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []*showroom.SigningKey
	for rows.Next() {
		var k showroom.SigningKey
		var seed []byte
		var created, retired int64
		if err := rows.Scan(&k.ID, &seed, &created, &retired); err != nil {
			return nil, err
		}
		if len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("signing key %s: bad seed length %d", k.ID, len(seed))
		}
		k.PrivateKey = ed25519.NewKeyFromSeed(seed)
		k.CreatedAt, k.RetiredAt = fromMS(created), fromMS(retired)
		keys = append(keys, &k)
	}
	return keys, rows.Err()
}

// AddSigningKey implements showroom.AuthStore.
func (db *DB) AddSigningKey(ctx context.Context, k *showroom.SigningKey) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE signing_keys SET retired_at = ? WHERE retired_at = 0`, ms(k.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (id, private_key, created_at) VALUES (?, ?, ?)`,
			k.ID, k.PrivateKey.Seed(), ms(k.CreatedAt))
		if isUnique(err) {
			return showroom.Errorf(showroom.EConflict, "signing key %q exists", k.ID)
		}
		return err
	})
}

// DeleteSigningKeysRetiredBefore implements showroom.AuthStore.
func (db *DB) DeleteSigningKeysRetiredBefore(ctx context.Context, t time.Time) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM signing_keys WHERE retired_at != 0 AND retired_at < ?`, ms(t))
	return err
}

// CreateRefreshToken implements showroom.AuthStore.
func (db *DB) CreateRefreshToken(ctx context.Context, t *showroom.RefreshToken) error {
	_, err := db.db.ExecContext(ctx, `INSERT INTO refresh_tokens (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		t.ID, t.UserID, ms(t.CreatedAt), ms(t.ExpiresAt))
	if isUnique(err) {
		return showroom.Errorf(showroom.EConflict, "refresh token exists")
	}
	return err
}

// FindRefreshToken implements showroom.AuthStore.
func (db *DB) FindRefreshToken(ctx context.Context, id string) (*showroom.RefreshToken, error) {
	t := &showroom.RefreshToken{ID: id}
	var created, expires, revoked int64
	err := db.db.QueryRowContext(ctx, `SELECT user_id, created_at, expires_at, revoked_at FROM refresh_tokens WHERE id = ?`, id).
		Scan(&t.UserID, &created, &expires, &revoked)
	if err != nil {
		return nil, notFound(err, showroom.ENotFound, "refresh token not found")
	}
	t.CreatedAt, t.ExpiresAt, t.RevokedAt = fromMS(created), fromMS(expires), fromMS(revoked)
	return t, nil
}

// RevokeRefreshToken implements showroom.AuthStore.
func (db *DB) RevokeRefreshToken(ctx context.Context, id string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE refresh_tokens SET revoked_at = ? WHERE id = ? AND revoked_at = 0`, ms(at), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.FindRefreshToken(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteRefreshTokensExpiredBefore implements showroom.AuthStore.
func (db *DB) DeleteRefreshTokensExpiredBefore(ctx context.Context, t time.Time) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM refresh_tokens WHERE expires_at < ?`, ms(t))
	return err
}
