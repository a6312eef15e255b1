package schemas

// Placeholder until the profiles branch is merged.
type Profile string

const (
	Reference Profile = "reference"
	Spec      Profile = "spec"
)

func LoadProfile(name string, p Profile) (*Validator, error) { return Load(name) }
