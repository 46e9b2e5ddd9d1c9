-- Whether a ready computer that is idle a while is frozen (no CPU) until its next request or packet:
-- on unless its owner turned it off (a computer whose timers must keep running).
ALTER TABLE computers ADD COLUMN freeze_when_idle BOOLEAN NOT NULL DEFAULT TRUE;
