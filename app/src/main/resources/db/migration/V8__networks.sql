-- Networks: each computer's egress policy as JSON {internet, allow_out, deny_out}; null (computers
-- made before) means the default: the internet, no extra networks allowed or denied.
ALTER TABLE computers ADD COLUMN network TEXT;
