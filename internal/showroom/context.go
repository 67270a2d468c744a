package showroom

import "context"

// contextKey keys the values this package keeps in a context.
type contextKey int

const (
	principalKey contextKey = iota
	companyKey
)

// NewContextWithPrincipal returns ctx carrying p, the caller whose access
// token the request's boundary verified.
func NewContextWithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey, p)
}

// PrincipalFromContext returns the caller ctx carries, or nil: a job's run
// has a company but no caller.
func PrincipalFromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey).(*Principal)
	return p
}

// NewContextWithCompany returns ctx carrying c, the company a request or a
// job acts for. The boundary resolves it once (the API from the token's
// company name, the queue from the job's record) and every layer below
// reads it here, keying its storage by c.ID, rather than looking the
// company up again by name.
func NewContextWithCompany(ctx context.Context, c *Company) context.Context {
	return context.WithValue(ctx, companyKey, c)
}

// CompanyFromContext returns the company ctx carries, or nil.
func CompanyFromContext(ctx context.Context) *Company {
	c, _ := ctx.Value(companyKey).(*Company)
	return c
}
