package showroom

import "testing"

func TestInsufficientCreditsMessage(t *testing.T) {
	for _, tc := range []struct {
		cost, balance int64
		want          string
	}{
		{1, 0, "this configuration costs 1 credit and the balance is 0"},
		{3, 2, "this configuration costs 3 credits and the balance is 2"},
	} {
		err := InsufficientCredits(tc.cost, tc.balance)
		if err.Code != EInsufficientCredits || err.Message != tc.want {
			t.Errorf("InsufficientCredits(%d, %d) = %s %q, want %q", tc.cost, tc.balance, err.Code, err.Message, tc.want)
		}
	}
}
