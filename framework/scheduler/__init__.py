"""The scheduler: ScheduleOne's scheduling and binding cycles over queue, cache and framework."""
