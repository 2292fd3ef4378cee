"""The verdict vocabulary: outcomes, a conformance failure, waivers, the evidence a check
reports, and the checks that hold on every answer."""
